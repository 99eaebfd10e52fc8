"""graphcell_ir: the compiler behind graphcell — op registry, IR, passes, autodiff, backend.

It never imports ``graphcell``; where it must understand user objects, graphcell hands it a
resolver.
"""
__version__ = "0.1.0"

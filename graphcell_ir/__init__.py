"""graphcell_ir: the compiler behind graphcell — op registry, IR, passes, autodiff, backend.

It never imports ``graphcell``; where it must understand user objects, graphcell hands it a
resolver (``frontend/resolve.py``). ``docs/architecture.md`` maps the packages.

:data:`PUBLIC` is the surface ``graphcell`` (or any other user) may import: the modules below,
each with what it is for. Everything else is the compiler's inside and may change without
notice; ``tests/test_import_structure.py`` keeps graphcell to this list.
"""
__version__ = "0.1.0"

PUBLIC = {
    # the IR and its text form
    "graphcell_ir.ir.types": "dtypes and types (DType is graphcell's dtype)",
    "graphcell_ir.ir.core": "Module, Function, Op, Value (reading compiled IR)",
    "graphcell_ir.ir.structural": "const/if/while/call... and const_array (reading compiled IR)",
    "graphcell_ir.ir.walk": "walking and cloning IR",
    "graphcell_ir.ir.verify": "the verifier (artifacts are verified when loaded)",
    "graphcell_ir.ir.export": "the IR as a networkx graph, Graphviz dot or SVG",
    "graphcell_ir.text.parser": "parsing .gcir text (artifacts)",
    "graphcell_ir.text.printer": "printing .gcir text",
    "graphcell_ir.text.summary": "the summary view of compiled IR (ops, fused groups, costs)",
    "graphcell_ir.text.page": "the HTML page of the compile stages",
    "graphcell_ir.text.values": "HostRef: a host callback read back from text (artifacts)",
    # the op registry and the functional op language
    "graphcell_ir.ops": "REGISTRY: every primitive, declared once",
    "graphcell_ir.ops.registry": "OpDef and its fields",
    "graphcell_ir.ops.functional": "F: the op language bprop rules and composites are written in",
    "graphcell_ir.ops.operators": "the one table of Python operators (Tensor and graph mode)",
    "graphcell_ir.ops.random": "the seeded generator random ops draw from",
    "graphcell_ir.ops.linalg": "factorization helpers shared with the ops API",
    "graphcell_ir.ops.shape_rules": "shape and dtype rules shared with the ops API",
    "graphcell_ir.ops.along_axis": "take_along/scatter_add_along composites",
    # compiling
    "graphcell_ir.frontend": "compile_function: Python source -> IR",
    "graphcell_ir.frontend.resolve": "the resolver protocol graphcell implements",
    "graphcell_ir.frontend.errors": "the frontend's error types",
    "graphcell_ir.frontend.output": "how a compiled function's outputs are structured",
    "graphcell_ir.frontend.grads": "pruning callees after inlining",
    "graphcell_ir.passes.manager": "the pass manager",
    "graphcell_ir.passes.pipelines": "the named pipelines",
    # running
    "graphcell_ir.backend.executable": "compile_executable: a Function as a Python runner",
    "graphcell_ir.backend.interp": "the reference interpreter (the oracle)",
    "graphcell_ir.backend.nnkernels": "the kernels PyNative and the executable share",
    "graphcell_ir.backend.report": "the compile report",
    "graphcell_ir.backend.profile": "the runtime profile of compiled runners (graphcell.profiler)",
    "graphcell_ir.backend.kernels": "the kernel caches' statistics and contents",
    "graphcell_ir.backend.objects": "the one route to machine code (whether this process has it)",
    "graphcell_ir.backend.cache_dir": "where compiled code is kept",
    "graphcell_ir.backend.blas_threads": "capping numpy's BLAS threads (device_context, the "
                                         "processes of a job sharing a machine)",
    "graphcell_ir.frontend.host": "host calls (hooks and JIT Fallback code run as py_call)",
    "graphcell_ir.comm": "the communication engine the collective ops run on",
    # ahead of time
    "graphcell_ir.backend.aot": "the native objects of a module, for an artifact",
    "graphcell_ir.backend.native": "native objects: checking, linking, targets",
    "graphcell_ir.backend.loops": "the convolution/pooling loops an artifact's code serves",
    "graphcell_ir.backend.onnx": "ONNX export of a compiled module",
    # shared
    "graphcell_ir.errors": "every error type the compiler raises",
    "graphcell_ir.switches": "the documented environment switches",
}
"""Module -> what graphcell uses it for."""

"""Reverse-mode autodiff on the IR, built from the registry's bprop rules."""

"""The PyNative runtime: eager dispatch of registry ops (and, with the PyNative issue, the tape)."""

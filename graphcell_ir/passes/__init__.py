"""IR-to-IR passes and the pass manager."""

"""A whole compiled function as one native call: its static buffer plan (:mod:`.plan`) and the
native step function that runs on it (:mod:`.emit`)."""

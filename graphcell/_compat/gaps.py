"""Why graphcell does not provide some MindSpore names: ``"namespace.name" -> reason``.

Only names with a reason beyond "not done yet" belong here (MindSpore 2.10's CPU build refuses
them, they need a device graphcell does not have, ...). ``docs/api_coverage.md`` shows these reasons
and the AttributeError for the name quotes them.
"""
GAPS: dict[str, str] = {}

"""The exceptions of ``mindspore.mindrecord``, under MindSpore's names and numbers.

MindSpore scripts catch these classes (``except MRMOpenError``) or their base
``MindRecordException``; graphcell raises them with a message that names the file, row, field or
argument at fault. ``error_msg`` and ``error_code`` are MindSpore's attributes (the code packs the
exception number as MindSpore's error codes do). Bad arguments of the file classes are
``ParamValueError``/``ParamTypeError``, which are also ``ValueError``/``TypeError``.

Example::

    >>> from graphcell.mindrecord import FileWriter, MRMInvalidSchemaError
    >>> try:
    ...     FileWriter("/tmp/doc.mindrecord", overwrite=True).add_schema({"x": {"type": "int8"}})
    ... except MRMInvalidSchemaError as e:
    ...     print(e)
    [MRMInvalidSchemaError]: field 'x': type 'int8' is not one of ['int32', 'int64', 'float32', 'float64', 'string', 'bytes']
"""
from __future__ import annotations

from graphcell_ir.errors import GraphcellError

_SYS_ID, _RT_HOST, _ERROR_CODE, _COMMON_LEVEL = 0b101010, 0b01, 0b01, 0b001


class MindRecordException(GraphcellError):
    """Base class of the MindRecord errors; ``str(e)`` is ``[ClassName]: message``."""

    number = 0

    def __init__(self, msg: str = ""):
        super().__init__(msg)
        self.error_msg = msg

    def __str__(self) -> str:
        return f"[{type(self).__name__}]: {self.error_msg}"

    @property
    def error_code(self) -> int:
        n = self.number
        return ((_RT_HOST << 30) | (_ERROR_CODE << 28) | (_COMMON_LEVEL << 25) | (_SYS_ID << 17)
                | ((n // 100 + 1) << 12) | (n & 0x0FFF))


def _error(name: str, number: int, doc: str, *bases) -> type:
    return type(name, (MindRecordException, *bases), {"number": number, "__doc__": doc,
                                                      "__module__": __name__})


UnknownError = _error("UnknownError", 0, "An error of no other kind.")
ParamTypeError = _error("ParamTypeError", 1, "An argument of the wrong type.", TypeError)
ParamValueError = _error("ParamValueError", 2, "An argument with a wrong value.", ValueError)
ParamMissError = _error("ParamMissError", 3, "A required argument is missing.", ValueError)
PathNotExistsError = _error("PathNotExistsError", 4, "A path that does not exist.")
DbConnectionError = _error("DbConnectionError", 5, "The SQLite index cannot be opened.")
MRMOpenError = _error("MRMOpenError", 100, "A MindRecord file that cannot be opened.")
MRMOpenForAppendError = _error("MRMOpenForAppendError", 101,
                               "A MindRecord file that cannot be opened for appending.")
MRMInvalidPageSizeError = _error("MRMInvalidPageSizeError", 102, "A page size out of range.")
MRMInvalidHeaderSizeError = _error("MRMInvalidHeaderSizeError", 103,
                                   "A header size out of range.")
MRMSetHeaderError = _error("MRMSetHeaderError", 104, "The header cannot be set.")
MRMWriteDatasetError = _error("MRMWriteDatasetError", 105, "Rows that cannot be written.")
MRMCommitError = _error("MRMCommitError", 107, "The files cannot be committed.")
MRMLaunchError = _error("MRMLaunchError", 108, "Reading cannot start.")
MRMFinishError = _error("MRMFinishError", 109, "Reading cannot finish.")
MRMCloseError = _error("MRMCloseError", 110, "A file cannot be closed.")
MRMAddSchemaError = _error("MRMAddSchemaError", 111, "The schema cannot be added.")
MRMAddIndexError = _error("MRMAddIndexError", 112, "An index field cannot be added.")
MRMBuildSchemaError = _error("MRMBuildSchemaError", 113, "The schema cannot be built.")
MRMGetMetaError = _error("MRMGetMetaError", 114, "The meta information cannot be read.")
MRMIndexGeneratorError = _error("MRMIndexGeneratorError", 115,
                                "The index generator cannot be created.")
MRMGenerateIndexError = _error("MRMGenerateIndexError", 116, "The index cannot be written.")
MRMInitSegmentError = _error("MRMInitSegmentError", 117, "A segment cannot be initialised.")
MRMFetchCandidateFieldsError = _error("MRMFetchCandidateFieldsError", 118,
                                      "The candidate category fields cannot be read.")
MRMReadCategoryInfoError = _error("MRMReadCategoryInfoError", 119,
                                  "The category information cannot be read.")
MRMFetchDataError = _error("MRMFetchDataError", 120, "Rows of a category cannot be read.")
MRMInvalidSchemaError = _error("MRMInvalidSchemaError", 200, "A schema MindRecord refuses.",
                               ValueError)
MRMValidateDataError = _error("MRMValidateDataError", 201, "A row that does not fit the schema.",
                              ValueError)
MRMDefineIndexError = _error("MRMDefineIndexError", 202, "A field that cannot be an index.",
                             ValueError)
MRMDefineBlobError = _error("MRMDefineBlobError", 203, "A field that cannot be a blob.",
                            ValueError)
MRMUnsupportedSchemaError = _error("MRMUnsupportedSchemaError", 204, "An unsupported schema.",
                                   ValueError)
MRMDefineCategoryError = _error("MRMDefineCategoryError", 205, "A bad category field.",
                                ValueError)

__all__ = ["MindRecordException", "UnknownError", "ParamTypeError", "ParamValueError",
           "ParamMissError", "PathNotExistsError", "DbConnectionError", "MRMOpenError",
           "MRMOpenForAppendError", "MRMInvalidPageSizeError", "MRMInvalidHeaderSizeError",
           "MRMSetHeaderError", "MRMWriteDatasetError", "MRMCommitError", "MRMLaunchError",
           "MRMFinishError", "MRMCloseError", "MRMAddSchemaError", "MRMAddIndexError",
           "MRMBuildSchemaError", "MRMGetMetaError", "MRMIndexGeneratorError",
           "MRMGenerateIndexError", "MRMInitSegmentError", "MRMFetchCandidateFieldsError",
           "MRMReadCategoryInfoError", "MRMFetchDataError", "MRMInvalidSchemaError",
           "MRMValidateDataError", "MRMDefineIndexError", "MRMDefineBlobError",
           "MRMUnsupportedSchemaError", "MRMDefineCategoryError"]

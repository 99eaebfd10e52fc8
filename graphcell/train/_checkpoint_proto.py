"""MindSpore's ``.ckpt`` schema, as protobuf message classes built from a descriptor.

A MindSpore checkpoint is a sequence of serialized ``Checkpoint`` messages (protobuf concatenation
merges their repeated ``value`` fields), each value a named tensor::

    message Checkpoint { repeated Value value = 1;
                         message Value { required string tag = 1;
                                         oneof value { TensorProto tensor = 2;
                                                       MapTensorProto maptensor = 3; } } }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }
    message MapTensorProto { repeated TensorProto tensor = 1; }

The classes live in a private descriptor pool, so a process that also imports MindSpore's own
generated module has no name clash. No protoc step: the descriptor is written out here.

Example::

    >>> cp = Checkpoint(); v = cp.value.add(); v.tag = "w"
    >>> v.tensor.tensor_type = "Float32"; v.tensor.tensor_content = b"\\0" * 4
    >>> back = Checkpoint.FromString(cp.SerializeToString()); back.value[0].tag
    'w'
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _field(message, name: str, number: int, kind, label, type_name: str = "",
           oneof: int | None = None) -> None:
    f = message.field.add(name=name, number=number, type=kind, label=label)
    if type_name:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof


def _schema() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(name="graphcell/mindspore_checkpoint.proto",
                                              package="graphcell_ckpt", syntax="proto2")
    tensor = file.message_type.add(name="TensorProto")
    _field(tensor, "dims", 1, _F.TYPE_INT64, _F.LABEL_REPEATED)
    _field(tensor, "tensor_type", 2, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(tensor, "tensor_content", 3, _F.TYPE_BYTES, _F.LABEL_REQUIRED)
    map_tensor = file.message_type.add(name="MapTensorProto")
    _field(map_tensor, "tensor", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".graphcell_ckpt.TensorProto")
    checkpoint = file.message_type.add(name="Checkpoint")
    _field(checkpoint, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED,
           ".graphcell_ckpt.Checkpoint.Value")
    value = checkpoint.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(value, "tensor", 2, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, ".graphcell_ckpt.TensorProto", 0)
    _field(value, "maptensor", 3, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL,
           ".graphcell_ckpt.MapTensorProto", 0)
    return file


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_schema())
Checkpoint = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("graphcell_ckpt.Checkpoint"))
"""The top-level message of a ``.ckpt`` file."""

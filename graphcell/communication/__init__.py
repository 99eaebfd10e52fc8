"""``graphcell.communication`` — MindSpore's ``mindspore.communication``: :func:`init`,
:func:`get_rank`, :func:`get_group_size`, groups (``management.py``)."""
from graphcell.communication.management import (GlobalComm, HCCL_WORLD_COMM_GROUP,
                                                MCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,
                                                create_group, destroy_group, get_group_rank_from_world_rank,
                                                get_group_size, get_local_rank, get_local_rank_size,
                                                get_process_group_ranks, get_rank,
                                                get_world_rank_from_group_rank, init, release)
from graphcell.communication import management

__all__ = management.__all__


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.communication", name, "module 'graphcell.communication'")

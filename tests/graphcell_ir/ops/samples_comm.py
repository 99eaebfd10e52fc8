"""Sample rows of the collective ops (``graphcell_ir/ops/collective.py``). The tests run in one
process, a world of one, where every collective is the identity: the rows check the shape rules,
the references' plumbing through the engine and the gradient rules' algebra there (the
multi-process behaviour is tested under ``mpiexec`` in ``tests/graphcell/distributed``)."""
from __future__ import annotations

from graphcell_ir.comm import REDUCE_OPS
from graphcell_ir.errors import OpTypeError, ShapeError
from samples import FLOATS, NUMERIC, Bad, Sample, T

WORLD = "hccl_world_group"


def _op(g, dt):
    return g.pick(REDUCE_OPS if dt in FLOATS else [o for o in REDUCE_OPS if o != "avg"])


def _values(g, dt, min_dims=0):
    # away from 0, so prod's gradient (out / x) is defined
    return g.array(g.shape(min_dims=min_dims), dt, 0.5, 3.0, signed=True)


def _all_reduce(g, dt):
    return (_values(g, dt),), {"op": _op(g, dt), "group": WORLD}


def _all_gather(g, dt):
    return (_values(g, dt, min_dims=1),), {"group": g.pick(["hccl_world_group",
                                                            "mccl_world_group"]), "rank_size": 1}


def _broadcast(g, dt):
    return (_values(g, dt),), {"root_rank": 0, "group": WORLD}


def _reduce_scatter(g, dt):
    return (_values(g, dt, min_dims=1),), {"op": _op(g, dt), "group": WORLD, "rank_size": 1}


def _reduce(g, dt):
    return (_values(g, dt),), {"op": _op(g, dt), "root_rank": 0, "group": WORLD}


ROWS: dict[str, Sample] = {
    "all_reduce": Sample(_all_reduce, NUMERIC, bad=(
        Bad((T("bool[3]"),), {}, OpTypeError),
        Bad((T("f32"),), {}, OpTypeError),                 # a Python number
        Bad((T("f32[3]"),), {"op": "mean"}, OpTypeError),
        Bad((T("i32[3]"),), {"op": "avg"}, OpTypeError))),
    "all_gather": Sample(_all_gather, NUMERIC, bad=(
        Bad((T("f32[]"),), {"rank_size": 2}, ShapeError),
        Bad((T("f32[3]"),), {"rank_size": 0}, OpTypeError))),
    "broadcast": Sample(_broadcast, NUMERIC, bad=(
        Bad((T("f32"),), {}, OpTypeError),
        Bad((T("f32[2]"),), {"root_rank": -1}, OpTypeError))),
    "reduce_scatter": Sample(_reduce_scatter, NUMERIC, bad=(
        Bad((T("f32[3]"),), {"rank_size": 2}, ShapeError),
        Bad((T("f32[]"),), {"rank_size": 1}, ShapeError),
        Bad((T("bool[4]"),), {"rank_size": 2}, OpTypeError))),
    "reduce": Sample(_reduce, NUMERIC, bad=(
        Bad((T("bool[3]"),), {}, OpTypeError),
        Bad((T("f32[3]"),), {"root_rank": -2}, OpTypeError))),
}

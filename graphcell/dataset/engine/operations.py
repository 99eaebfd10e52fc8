"""The pipeline's operations: each a node over its child's rows (see ``datasets.Dataset``).

Operations that only select or reorder rows keep an ``Indexed`` pass indexed (``shuffle``,
``take``, ``skip``, ``repeat``, ``project``, ``rename``, and ``map`` when every transform works on
whole arrays), so that ``batch`` over them gathers each batch in one read per column.

Column placement after ``map`` and ``per_batch_map`` follows MindSpore: as many outputs as inputs
take the inputs' places; otherwise the outputs come first, then the other columns. An output
named like a column that is kept is an error (MindSpore silently drops one of the two).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from graphcell.dataset.core.errors import ColumnError, PipelineError
from graphcell.dataset.core.validate import INT32_MAX, check_bool, check_int, column_list
from graphcell.dataset.engine.datasets import Dataset, check_count
from graphcell.dataset.engine.rows import (Indexed, MappedTable, Row, column_positions,
                                           function_outputs, rows_of, stack_column, to_array)


def _child_size(node: Dataset) -> int | None:
    return node.children[0]._static_size()


def _call_user(node: Dataset, fn: Callable, args, what: str, name: str | None = None):
    """Call user code; its failure becomes a PipelineError naming the operation."""
    try:
        return fn(*args)
    except PipelineError:
        raise
    except Exception as e:
        name = name or getattr(fn, "__name__", type(fn).__name__)
        raise PipelineError(f"{node._describe()}: {what} {name} raised {type(e).__name__}: "
                            f"{e}") from e


# --- column placement -------------------------------------------------------------------------

class ColumnPlan:
    """Where a map's outputs go: ``sources[k]`` says whether new column k is output j
    (``("out", j)``) or old column p (``("in", p)``)."""

    def __init__(self, names: Sequence[str], inputs: Sequence[str], outputs: Sequence[str],
                 op: str):
        in_pos = column_positions(names, inputs, op)
        if len(inputs) == len(outputs):
            sources = [("in", p) for p in range(len(names))]
            for j, p in enumerate(in_pos):
                sources[p] = ("out", j)
        else:
            kept = [p for p in range(len(names)) if p not in in_pos]
            sources = [("out", j) for j in range(len(outputs))] + [("in", p) for p in kept]
        new = [outputs[i] if kind == "out" else names[i] for kind, i in sources]
        clash = sorted({n for n in new if new.count(n) > 1})
        if clash:
            raise ColumnError(f"{op}: output column {clash[0]!r} is also a column the dataset "
                              f"keeps; the columns would be {new}. Choose another "
                              f"output_columns name or include {clash[0]!r} in input_columns")
        self.in_pos, self.names, self.sources = in_pos, tuple(new), sources
        self.n_out = len(outputs)

    def assemble(self, row: Row, outs: Row) -> Row:
        return tuple(outs[i] if kind == "out" else row[i] for kind, i in self.sources)


# --- batch --------------------------------------------------------------------------------------

class BatchInfo:
    """What a ``batch_size`` function or ``per_batch_map`` learns about the batch being made."""

    def __init__(self, batch_num: int, epoch_num: int):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        """The batch's number in this epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self) -> int:
        """The epoch's number, from 0."""
        return self._epoch_num


class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                 input_columns, output_columns):
        super().__init__([child], num_parallel_workers)
        if not callable(batch_size):
            check_int("batch_size", batch_size, 1, INT32_MAX)
        self.batch_size = batch_size
        self.drop_remainder = check_bool("drop_remainder", drop_remainder)
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError(f"batch: per_batch_map must be callable, got "
                            f"{type(per_batch_map).__name__}")
        self.per_batch_map = per_batch_map
        names = child._columns()
        inputs = column_list("input_columns", input_columns)
        outputs = column_list("output_columns", output_columns)
        if per_batch_map is None and (inputs or outputs):
            raise ValueError("batch: input_columns/output_columns need a per_batch_map")
        inputs = inputs or list(names)
        self._plan = ColumnPlan(names, inputs, outputs or inputs, "batch")

    def _columns(self):
        return self._plan.names

    def _static_size(self):
        n = _child_size(self)
        if n is None or callable(self.batch_size):
            return None
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def get_batch_size(self) -> int:
        return self.batch_size if not callable(self.batch_size) else -1

    def _stream(self, run):
        epoch = run.next_pass(self)
        src = self.children[0]._stream(run)
        if isinstance(src, Indexed) and self.per_batch_map is None and \
                not callable(self.batch_size):
            return self._gathered(src)
        return self._stacked(rows_of(src), epoch)

    def _gathered(self, src: Indexed) -> Iterator[Row]:
        order, size, gather = src.order, self.batch_size, src.table.gather
        stop = len(order) - len(order) % size if self.drop_remainder else len(order)
        for start in range(0, stop, size):
            yield gather(order[start:start + size])

    def _stacked(self, rows: Iterator[Row], epoch: int) -> Iterator[Row]:
        names = self.children[0]._columns()
        for num in itertools.count():
            size = self._size_of(BatchInfo(num, epoch))
            chunk = list(itertools.islice(rows, size))
            if not chunk or (self.drop_remainder and len(chunk) < size):
                return
            if self.per_batch_map is None:
                yield tuple(stack_column([r[c] for r in chunk], names[c], self._describe())
                            for c in range(len(names)))
            else:
                yield self._mapped(chunk, BatchInfo(num, epoch))

    def _size_of(self, info: BatchInfo) -> int:
        if not callable(self.batch_size):
            return self.batch_size
        size = _call_user(self, self.batch_size, (info,), "the batch_size function")
        return check_int("the batch size the batch_size function returned", size, 1)

    def _mapped(self, chunk: list[Row], info: BatchInfo) -> Row:
        plan = self._plan
        lists = [[r[p] for r in chunk] for p in plan.in_pos]
        outs = _call_user(self, self.per_batch_map, (*lists, info), "per_batch_map")
        outs = outs if isinstance(outs, tuple) else (outs,)
        if len(outs) != plan.n_out:
            raise PipelineError(f"{self._describe()}: per_batch_map returned {len(outs)} "
                                f"columns for output_columns of length {plan.n_out}")
        arrays = tuple(_call_user(self, _batch_column, (o, f"output {i}"), "per_batch_map")
                       for i, o in enumerate(outs))
        names = self.children[0]._columns()
        kept = {p for kind, p in plan.sources if kind == "in"}
        stacked = tuple(stack_column([r[p] for r in chunk], names[p], self._describe())
                        if p in kept else None for p in range(len(names)))
        return plan.assemble(stacked, arrays)


def _batch_column(value, where: str) -> np.ndarray:
    if isinstance(value, (list, tuple)):
        return stack_column([to_array(v, where) for v in value], where, where)
    return to_array(value, where)


# --- shuffle ------------------------------------------------------------------------------------

def buffer_shuffle(items: Iterator, size: int, rng: np.random.Generator) -> Iterator:
    """MindSpore's shuffle buffer: hold ``size`` items; each new item replaces a random one,
    which is yielded; at the end the buffer is emptied in random order. A buffer that holds
    everything gives a uniformly random permutation."""
    buf: list = []
    draws = _uniforms(rng)
    for item in items:
        if len(buf) < size:
            buf.append(item)
            continue
        k = int(next(draws) * size)
        yield buf[k]
        buf[k] = item
    while buf:
        k = int(next(draws) * len(buf))
        yield buf[k]
        buf[k] = buf[-1]
        buf.pop()


def _uniforms(rng: np.random.Generator) -> Iterator[float]:
    while True:
        yield from rng.random(4096).tolist()


class ShuffleDataset(Dataset):
    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = check_int("buffer_size", buffer_size, 2, INT32_MAX)

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        return _child_size(self)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        rng = run.rng(self)
        if isinstance(src, Indexed):
            order = list(buffer_shuffle(iter(src.order.tolist()), self.buffer_size, rng))
            return Indexed(src.table, np.asarray(order, dtype=np.int64))
        return buffer_shuffle(rows_of(src), self.buffer_size, rng)


# --- map and filter -----------------------------------------------------------------------------

class MapDataset(Dataset):
    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers)
        ops = operations if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"map: operations must be a callable or a non-empty list of "
                            f"callables, got {operations!r}")
        self.operations = list(ops)
        names = child._columns()
        inputs = column_list("input_columns", input_columns) or [names[0]]
        outputs = column_list("output_columns", output_columns) or inputs
        self._plan = ColumnPlan(names, inputs, outputs, "map")

    def _columns(self):
        return self._plan.names

    def _static_size(self):
        return _child_size(self)

    def _apply(self, args: Row, rng) -> Row:
        for op in self.operations:
            apply = getattr(op, "apply_with", None)
            if apply is not None:  # graphcell's transforms: random ones draw from the pass's rng
                args = _call_user(self, apply, (args, rng), "the transform",
                                  type(op).__name__)
            else:
                name = getattr(op, "__name__", type(op).__name__)
                args = _call_user(self, lambda *a: function_outputs(op(*a), name), args,
                                  "the function", name)
        if len(args) != self._plan.n_out:
            raise PipelineError(f"{self._describe()}: the operations returned {len(args)} "
                                f"columns for {self._plan.n_out} output columns "
                                f"{list(self._plan.names)}")
        return args

    def _map_row(self, row: Row, rng) -> Row:
        return self._plan.assemble(row, self._apply(tuple(row[p] for p in self._plan.in_pos), rng))

    def _batchable(self) -> bool:
        return all(getattr(op, "batch_apply", None) is not None for op in self.operations)

    def _map_batch(self, batch: Row) -> Row:
        args = tuple(batch[p] for p in self._plan.in_pos)
        for op in self.operations:
            args = _call_user(self, op.batch_apply, (args,), "the transform", type(op).__name__)
        if len(args) != self._plan.n_out:
            raise PipelineError(f"{self._describe()}: the operations returned {len(args)} "
                                f"columns for {self._plan.n_out} output columns")
        return self._plan.assemble(batch, args)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        # only a map that draws asks for a generator, so that adding a deterministic map does
        # not change the generators of the shuffles around it
        rng = run.rng(self) if any(getattr(op, "random", False) for op in self.operations) \
            else None
        if isinstance(src, Indexed) and self._batchable():
            table = MappedTable(src.table, self._plan.names, lambda r: self._map_row(r, None),
                                self._map_batch)
            return Indexed(table, src.order)
        return (self._map_row(row, rng) for row in rows_of(src))


class FilterDataset(Dataset):
    def __init__(self, child, predicate, input_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {type(predicate).__name__}")
        self.predicate = predicate
        names = child._columns()
        inputs = column_list("input_columns", input_columns) or list(names)
        self._in_pos = column_positions(names, inputs, "filter")

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        return None

    def _keep(self, row: Row) -> bool:
        verdict = _call_user(self, self.predicate, [row[p] for p in self._in_pos], "predicate")
        v = np.asarray(verdict)
        if v.size != 1 or v.dtype.kind not in "biu":
            raise PipelineError(f"{self._describe()}: the predicate must return a bool, got "
                                f"{verdict!r}")
        return bool(v)

    def _stream(self, run):
        return (row for row in rows_of(self.children[0]._stream(run)) if self._keep(row))


# --- repeat, take, skip -------------------------------------------------------------------------

class RepeatDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        self.count = check_count("count", count, allow_all=True)

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        n = _child_size(self)
        if n is None or self.count == -1:
            return n  # MindSpore reports one pass for an endless repeat
        return n * self.count

    def get_repeat_count(self) -> int:
        return self.count

    def _stream(self, run):
        child = self.children[0]
        if self.count == -1:
            return self._forever(run)
        passes = [child._stream(run)]
        if isinstance(passes[0], Indexed):
            passes += [child._stream(run) for _ in range(self.count - 1)]
            if all(isinstance(p, Indexed) for p in passes):
                # the tables of two passes of one node hold the same rows
                return Indexed(passes[0].table, np.concatenate([p.order for p in passes]))
            return itertools.chain.from_iterable(rows_of(p) for p in passes)
        return self._chained(passes[0], run)

    def _chained(self, first, run) -> Iterator[Row]:
        yield from rows_of(first)
        for _ in range(self.count - 1):
            yield from rows_of(self.children[0]._stream(run))

    def _forever(self, run) -> Iterator[Row]:
        while True:
            empty = True
            for row in rows_of(self.children[0]._stream(run)):
                empty = False
                yield row
            if empty:  # an empty dataset repeated without end is empty
                return


class TakeDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        self.count = check_count("count", count, allow_all=True)

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        n = _child_size(self)
        return n if n is None or self.count == -1 else min(n, self.count)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        if self.count == -1:
            return src
        if isinstance(src, Indexed):
            return Indexed(src.table, src.order[:self.count])
        return itertools.islice(src, self.count)


class SkipDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        self.count = check_int("count", count, 0, INT32_MAX)

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        n = _child_size(self)
        return None if n is None else max(n - self.count, 0)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        if isinstance(src, Indexed):
            return Indexed(src.table, src.order[self.count:])
        return itertools.islice(src, self.count, None)


# --- columns ------------------------------------------------------------------------------------

class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = column_list("columns", columns, allow_none=False)
        self._pos = column_positions(child._columns(), self.columns, "project")

    def _columns(self):
        return tuple(self.columns)

    def _static_size(self):
        return _child_size(self)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        if isinstance(src, Indexed):
            return Indexed(src.table.select(self._pos, self.columns), src.order)
        return (tuple(row[p] for p in self._pos) for row in src)


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        inputs = column_list("input_columns", input_columns, allow_none=False)
        outputs = column_list("output_columns", output_columns, allow_none=False)
        if len(inputs) != len(outputs):
            raise ValueError(f"rename: input_columns and output_columns must have the same "
                             f"length, got {inputs} and {outputs}")
        names = list(child._columns())
        for p, new in zip(column_positions(names, inputs, "rename"), outputs):
            names[p] = new
        clash = sorted({n for n in names if names.count(n) > 1})
        if clash:
            raise ColumnError(f"rename: the new name {clash[0]!r} is already a column; the "
                              f"columns would be {names}")
        self._names = tuple(names)

    def _columns(self):
        return self._names

    def _static_size(self):
        return _child_size(self)

    def _stream(self, run):
        src = self.children[0]._stream(run)
        if isinstance(src, Indexed):
            return Indexed(src.table.select(range(len(self._names)), self._names), src.order)
        return src


class ZipDataset(Dataset):
    def __init__(self, datasets):
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError(f"zip: expected datasets, got {datasets!r}")
        super().__init__(datasets)
        names = [n for d in datasets for n in d._columns()]
        clash = sorted({n for n in names if names.count(n) > 1})
        if clash:
            raise ColumnError(f"zip: column {clash[0]!r} is in more than one of the zipped "
                              f"datasets (columns {names}); rename or project them first")
        self._names = tuple(names)

    def _columns(self):
        return self._names

    def _static_size(self):
        sizes = [d._static_size() for d in self.children]
        return None if None in sizes else min(sizes)

    def _stream(self, run):
        streams = [rows_of(d._stream(run)) for d in self.children]
        return (tuple(v for r in rows for v in r) for rows in zip(*streams))


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        if not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError(f"concat: expected datasets, got {datasets!r}")
        super().__init__(datasets)
        first = datasets[0]._columns()
        for d in datasets[1:]:
            if d._columns() != first:
                raise ColumnError(f"concat: the datasets must have the same columns in the same "
                                  f"order, got {list(first)} and {list(d._columns())}")

    def _columns(self):
        return self.children[0]._columns()

    def _static_size(self):
        sizes = [d._static_size() for d in self.children]
        return None if None in sizes else sum(sizes)

    def _stream(self, run):
        return itertools.chain.from_iterable(rows_of(d._stream(run)) for d in self.children)

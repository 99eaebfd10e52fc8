"""``Spares``: a retired array is handed out again only when nothing else refers to it."""
import numpy as np

from graphcell_ir.backend.spares import Spares


def test_an_array_only_the_slot_holds_is_taken_once():
    spares = Spares()
    spares.retire(0, np.zeros(4, np.float32))
    a = spares.take(0)
    assert a is not None and a.shape == (4,)
    assert spares.take(0) is None


def test_an_array_held_elsewhere_is_dropped_not_taken():
    spares, held = Spares(), np.zeros(4, np.float32)
    spares.retire(0, held)
    assert spares.take(0) is None
    assert spares.take(0) is None            # dropped: the slot is empty now


def test_an_array_with_a_view_of_it_is_not_taken():
    spares, a = Spares(), np.zeros((2, 2), np.float32)
    view = a[0]
    spares.retire(0, a)
    del a
    assert spares.take(0) is None
    assert view.base is not None


def test_views_read_only_and_strided_arrays_are_never_retired_or_taken():
    spares = Spares()
    spares.retire(0, np.zeros((2, 4), np.float32)[:, 1])     # a view: its owner may be held
    assert spares.take(0) is None
    frozen = np.zeros(4, np.float32)
    frozen.setflags(write=False)
    spares.retire(1, frozen)
    del frozen
    assert spares.take(1) is None
    spares.retire(2, np.zeros((4, 4), np.float32, order="F"))
    assert spares.take(2) is None

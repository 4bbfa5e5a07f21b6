"""Issue 37: the catalog's files are looked over at most once a second (it cost every page that
reads the catalog some 30 us); a file changed on disk is still picked up, within that second,
and `forget` reads the catalog again at once."""

from __future__ import annotations

import os

from app.catalog import catalog as catalog_module
from app.catalog.catalog import CatalogStore


def _store(tmp_path, monkeypatch):
    clock = [1000.0]
    loads: list[object] = []

    def load(dirs):
        loads.append(object())
        return loads[-1]

    monkeypatch.setattr(catalog_module, "load", load)
    monkeypatch.setattr(catalog_module.time, "monotonic", lambda: clock[0])
    return CatalogStore(tmp_path), clock, loads


def test_issue37_the_catalog_files_are_looked_over_at_most_once_a_second(tmp_path, monkeypatch):
    store, clock, loads = _store(tmp_path, monkeypatch)
    looked = []
    real = store._current_stamp
    monkeypatch.setattr(store, "_current_stamp", lambda: looked.append(1) or real())
    first = store.get()
    assert store.get() is first and len(looked) == 1  # not looked over again within the second
    clock[0] += CatalogStore.RECHECK_SECONDS
    assert store.get() is first and len(looked) == 2  # looked over; nothing changed, nothing read
    assert len(loads) == 1


def test_issue37_a_changed_file_is_picked_up_within_the_second(tmp_path, monkeypatch):
    store, clock, loads = _store(tmp_path, monkeypatch)
    first = store.get()
    imported = tmp_path / "imported.json"
    imported.write_text("{}")
    os.utime(imported, ns=(1, 1))
    clock[0] += CatalogStore.RECHECK_SECONDS / 2
    assert store.get() is first
    clock[0] += CatalogStore.RECHECK_SECONDS / 2
    second = store.get()
    assert second is not first and second is loads[-1]
    os.utime(imported, ns=(2, 2))  # changed in place
    clock[0] += CatalogStore.RECHECK_SECONDS
    assert store.get() is loads[-1] is not second


def test_issue37_forget_reads_the_catalog_again_at_once(tmp_path, monkeypatch):
    store, _clock, loads = _store(tmp_path, monkeypatch)
    first = store.get()
    store.forget()
    assert store.get() is not first and len(loads) == 2

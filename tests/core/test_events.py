def test_every_module_that_registers_an_event_is_loaded_for_reading_it_back():
    """A ledger entry's event is rebuilt by name (the ledger page recomputes every epsilon):
    each accounting module with an ``@register_event`` must be in EVENT_MODULES."""
    import pathlib

    import privrl.core.accounting as accounting
    from privrl.core.accounting.events import EVENT_MODULES

    folder = pathlib.Path(accounting.__file__).parent
    defining = {
        f"privrl.core.accounting.{p.stem}"
        for p in folder.glob("*.py")
        if p.stem != "events" and "@register_event" in p.read_text()
    }
    assert defining <= set(EVENT_MODULES), sorted(defining - set(EVENT_MODULES))

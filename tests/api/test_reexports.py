"""``privrl.NAME`` is :mod:`privrl.api`'s NAME, loaded on first use from the api's one list."""

from __future__ import annotations

import subprocess
import sys

import privrl
import privrl.api


def test_the_package_re_exports_exactly_the_apis_names():
    assert privrl.__all__ == ["__version__", *privrl.api.__all__]
    for name in privrl.api.__all__:
        assert getattr(privrl, name) is getattr(privrl.api, name), name
    assert set(privrl.api.__all__) <= set(dir(privrl))


def test_importing_privrl_loads_no_api_and_private_names_never_do():
    code = (
        "import sys, privrl; "
        "assert not hasattr(privrl, '_missing') and not hasattr(privrl, '__wrapped__'); "
        "assert 'privrl.api' not in sys.modules, 'privrl.api was imported'; "
        "assert not hasattr(privrl, 'missing') and 'privrl.api' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

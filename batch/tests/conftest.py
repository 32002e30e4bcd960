"""Fixtures: the 20 small inputs of samples.py, what plain `waymark process` writes for each,
and the marks that skip what cannot run here."""

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from samples import BENCH, BUILD, WAYMARK, InputSet, make_inputs

binaries_built = pytest.mark.skipif(
    not (WAYMARK.is_file() and BENCH.is_file()), reason=f"no waymark and waymark-bench in {BUILD} (swift build first)")


def _interfaces() -> list[str]:
    with open("/proc/net/dev") as table:  # this network namespace's, unlike /sys/class/net
        return [line.split(":")[0].strip() for line in table.readlines()[2:]]


# Ray binds to the machine's outside address unless the network namespace has none (ray#26293).
loopback_only = pytest.mark.skipif(
    _interfaces() != ["lo"],
    reason="Ray clusters run only in a loopback-only network namespace (make test uses unshare -n)")


@pytest.fixture(scope="session")
def input_set(tmp_path_factory) -> InputSet:
    return make_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="session")
def plain_results(input_set, tmp_path_factory) -> dict[str, bytes]:
    """Input path -> the bytes plain `waymark process` writes for it."""
    folder = tmp_path_factory.mktemp("plain")

    def run(numbered):
        number, path = numbered
        output = folder / f"{number}.jsonl"
        subprocess.run(input_set.plain_command(path, output), check=True)
        return str(path), output.read_bytes()

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(run, enumerate(input_set.inputs)))



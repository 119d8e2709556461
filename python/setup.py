"""Bundles the built C library into the package (pyproject.toml has the metadata): the
wheel's laysim/ gets $LAYSIM_LIBRARY, else ../build/liblaysim.so, which _lib.py finds
there first. Without either the package installs without it and finds the library at run
time ($LAYSIM_LIBRARY, an installed prefix, the linker's path)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def built_library():
    path = os.environ.get("LAYSIM_LIBRARY") or os.path.join(HERE, "..", "build", "liblaysim.so")
    return os.path.realpath(path) if os.path.isfile(path) else None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib:
            dest = os.path.join(self.build_lib, "laysim", "liblaysim.so")
            self.announce(f"bundling {lib} as {dest}", level=2)
            shutil.copyfile(lib, dest)
        else:
            self.warn("no built liblaysim.so (make build, or set LAYSIM_LIBRARY): the package "
                      "will look for the library at run time")


setup(cmdclass={"build_py": BuildWithLibrary})

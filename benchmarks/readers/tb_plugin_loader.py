"""What the tb_plugin_* readers share: the TensorBoard profiler plugin on the path, and a trace parsed by it quietly.

Importing this puts TB_PLUGIN_PATH (a checkout of pytorch/kineto's tb_plugin at 94979607^) first on sys.path and
silences the plugin's Python warnings.
"""
import contextlib
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.environ.get("TB_PLUGIN_PATH", "/tmp/kineto/tb_plugin"))
warnings.simplefilter("ignore")

from torch_tb_profiler.profiler.data import RunProfileData  # noqa: E402


def worker(path):
    """The worker name the plugin gives a trace file: its name up to the first dot."""
    return os.path.basename(path).split(".")[0]


def quiet():
    """A context in which the plugin's prints go to stderr: it prints its warnings on stdout, where the JSON goes."""
    return contextlib.redirect_stdout(sys.stderr)


def parse(path):
    """The plugin's RunProfileData for one trace file; call it inside quiet() when stdout carries the output."""
    return RunProfileData.parse(worker(path), None, path, tempfile.mkdtemp())

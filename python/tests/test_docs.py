"""docs/python.md's worked example, run literally: the first ```python block under
"## A worked example" runs from the repository root in a fresh interpreter, and what it
prints must be the ```text block that follows it on the page."""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGE = os.path.join(ROOT, "docs", "python.md")


def worked_example(text):
    """(code, shown output) of the section "## A worked example" of the page."""
    section = re.search(r"^## A worked example.*?(?=^## )", text, re.S | re.M)
    if not section:
        raise AssertionError("docs/python.md has no section '## A worked example'")
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section.group(0), re.S | re.M)
    code = next((b for lang, b in blocks if lang == "python"), None)
    shown = next((b for lang, b in blocks if lang == "text"), None)
    if code is None or shown is None:
        raise AssertionError("the worked example needs a ```python and a ```text block")
    return code, shown


class WorkedExample(unittest.TestCase):
    def test_runs_as_shown(self):
        with open(PAGE) as f:
            code, shown = worked_example(f.read())
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p])
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, shown,
                         "docs/python.md's worked example prints something else now: "
                         "put its output in the page")
        # exact's assignment is never worse than greedy's under the objective
        costs = dict(re.findall(r"^(\w+) +\w+ +predicted +(\d+) cycles", run.stdout, re.M))
        self.assertEqual(set(costs), {"greedy", "exact"})
        self.assertLessEqual(int(costs["exact"]), int(costs["greedy"]))


if __name__ == "__main__":
    unittest.main()

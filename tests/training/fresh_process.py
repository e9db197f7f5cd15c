"""Whether a training imports ``torch._dynamo``, asked of a fresh process (about 2 s if it does)."""

import subprocess
import sys


def imports_torch_dynamo(imports: str, training: str) -> bool:
    """Whether ``training`` (Python, with digits loaded as ``d``) imports ``torch._dynamo``.

    Run after ``imports`` in a new interpreter, so that nothing imported it before.
    """
    probe = (
        f"import sys\n{imports}\n"
        "from labeldp_core.data import load_dataset\n"
        f"d = load_dataset('digits')\n{training}\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-800:]
    return done.stdout.strip() == "True"

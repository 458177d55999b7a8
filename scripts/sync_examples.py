"""Copy each example file into the doc blocks marked `<!-- example: PATH -->` (README.md, docs/*.md).

Run after editing a file under examples/; tests/test_examples.py fails while a block differs from its file.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(
    r"(?P<head><!-- example: (?P<path>\S+) -->\n```\w*\n)(?P<body>.*?)(?P<tail>^```)", re.S | re.M
)


def main() -> None:
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        new = MARKED.sub(lambda m: m["head"] + (ROOT / m["path"]).read_text() + m["tail"], text)
        if new != text:
            doc.write_text(new)
            print(f"updated {doc.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

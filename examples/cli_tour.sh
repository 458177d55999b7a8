# examples/cli_tour.sh: the CLI on the demo's sample conversation. Run it from the repository root after
# ./scripts/setup: `bash examples/cli_tour.sh` (tests/test_examples.py does, and checks what it prints).
set -euo pipefail
export PATH="$PWD/.venv/bin:$PATH"
ws=$(mktemp -d) out=$(mktemp -d)                                   # a workspace is just a folder
knowledge-engine ingest --workspace $ws knowledge_engine/data/sample_conversation.jsonl  # same pipeline as the hooks
knowledge-engine stats --workspace $ws --json                      # counts, sizes, sync state, maintenance runs
knowledge-engine entities --workspace $ws --type person
knowledge-engine facts --workspace $ws --subject Maya --history
knowledge-engine messages --workspace $ws --session s1 --since 2026-09-01
knowledge-engine show --workspace $ws person:maya                  # an entity with its facts and evidence, or a fact's history
knowledge-engine search --workspace $ws "where does maya work"     # keyword + semantic, scores per arm
knowledge-engine context --workspace $ws "where does maya work"    # exactly what before_prompt_build would inject
knowledge-engine forget --workspace $ws --entity "Tom" --dry-run
knowledge-engine edit --workspace $ws --fact f-baac0aac82fdb1a6 --object "Helix Robotics GmbH"  # ids: `facts`
knowledge-engine export --workspace $ws --format html --output $out/graph.html   # self-contained interactive graph
knowledge-engine export --workspace $ws --format jsonl --output $out/export.jsonl
knowledge-engine import --workspace $out/copy $out/export.jsonl
knowledge-engine validate --workspace $ws --repair
knowledge-engine sync --workspace $ws --rebuild
knowledge-engine maintain --workspace $ws --once                   # or --daemon

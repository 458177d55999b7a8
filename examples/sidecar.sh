# examples/sidecar.sh: the sidecar's HTTP API with curl. Run it from the repository root after ./scripts/setup:
# `bash examples/sidecar.sh` (tests/test_examples.py does, and checks the answers).
set -euo pipefail
export PATH="$PWD/.venv/bin:$PATH"
dir=$(mktemp -d) && S=$dir/sidecar.sock
echo "{\"workspace\": \"$dir/agents/{agentId}\"}" > $dir/config.json   # where each agent's knowledge goes
knowledge-engine serve --config $dir/config.json --socket $S --parent-pid $$ > $dir/listening.json 2> $dir/sidecar.log &
until curl -sf --unix-socket $S http://ke/health; do sleep 0.2; done; echo
# {"status":"ok","ready":false,"version":"0.1.0","pid":4242,"hooks":["before_prompt_build","gateway_stop",...]}

curl -s --unix-socket $S http://ke/hooks/message_received -H 'Content-Type: application/json' -d '{
  "event": {"from": "u1", "content": "I work at Globex Corporation", "messageId": "m1",
            "sessionKey": "agent:main:webchat"},
  "ctx": {"channelId": "webchat"}}'; echo
# {"result":null}

curl -s --unix-socket $S http://ke/drain -d '{"timeoutMs": 120000}'; echo  # waits for extraction
# {"drained":true,"pending":0}

curl -s --unix-socket $S http://ke/hooks/before_prompt_build -d '{
  "event": {"prompt": "Where do I work?", "messages": []},
  "ctx": {"agentId": "main", "sessionKey": "agent:main:webchat"}}'; echo
# {"result":{"appendSystemContext":"<<<knowledge-engine:BEGIN nonce=...>>>\n## Retrieved Knowledge\n..."}}

kill -TERM %1 && wait %1   # drains, flushes, exits 0

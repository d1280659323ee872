"""What a user's Python program does with the hub: JSON-RPC 2.0 over HTTP with httpx."""

import itertools

import httpx

_ids = itertools.count(1)


def rpc(client: httpx.Client, url: str, method: str, **params):
    answer = client.post(
        url + "rpc", json={"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
    ).json()
    return answer


def test_send_inbox_reply_and_status(hub):
    with httpx.Client() as client:
        sent = rpc(
            client,
            hub.url,
            "email.send",
            **{"from": "me", "to": ["dev"], "subject": "Ship it", "body": "Please ship 1.2",
               "sourceType": "human", "metadata": {"ticket": "T-1"}},
        )["result"]
        assert sent["sourceType"] == "human"
        inbox = rpc(client, hub.url, "email.inbox", agent="dev")["result"]
        assert [m["id"] for m in inbox] == [sent["id"]]
        assert inbox[0]["metadata"] == {"ticket": "T-1"}
        reply = rpc(client, hub.url, "email.reply", **{"from": "dev", "id": sent["id"], "body": "Shipped"})
        assert reply["result"]["replies"][-1]["to"] == "me", reply
        mine = rpc(client, hub.url, "email.inbox", agent="me")["result"]
        assert mine[0]["replies"][-1]["body"] == "Shipped"
        status = rpc(client, hub.url, "email.status", id=sent["id"])["result"]
        assert status["status"] == "replied", status
        assert status["repliedAt"]
    # The CLI sees what the hub wrote: the files are the truth.
    assert "Ship it" in hub.filebox("--agent", "me", "list", "inbox")


def test_errors_a_program_can_act_on(hub):
    with httpx.Client() as client:
        unknown = rpc(client, hub.url, "email.nope")
        assert unknown["error"]["code"] == -32601
        bad = rpc(client, hub.url, "email.send", **{"from": "dev", "to": ["qa"], "subject": "s", "body": 5, "sourceType": "agent"})
        assert bad["error"]["code"] == -32602
        assert bad["error"]["data"]["field"] == "body"
        nobody = rpc(client, hub.url, "email.inbox", agent="nobody")
        assert nobody["error"]["data"]["kind"] == "unknown_agent"
        batch = client.post(
            hub.url + "rpc",
            json=[
                {"jsonrpc": "2.0", "id": 1, "method": "agents.list"},
                {"jsonrpc": "2.0", "id": 2, "method": "rpc.discover"},
            ],
        ).json()
        assert [a["id"] for a in batch] == [1, 2]
        assert batch[1]["result"]["openrpc"]
        foreign = client.post(hub.url + "rpc", json={}, headers={"Origin": "https://evil.example"})
        assert foreign.status_code == 403


def test_the_unix_socket_serves_the_same_api(hub):
    transport = httpx.HTTPTransport(uds=str(hub.config.parent / "hub.sock"))
    with httpx.Client(transport=transport) as client:
        agents = rpc(client, "http://localhost/", "agents.list")["result"]
        assert sorted(a["id"] for a in agents) == ["dev", "me", "qa"]


def test_sigterm_stops_the_hub_cleanly(hub):
    assert hub.stop() == 0
    assert not (hub.config.parent / "hub.sock").exists()

"""What a user's Python program does with the hub: JSON-RPC 2.0 over HTTP with httpx, and
a webhook receiver that verifies the hub's signatures with the `standardwebhooks` library."""

import itertools
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import jsonrpcserver
from standardwebhooks.webhooks import Webhook

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
        # A person's request, answered, is marked done: the answer is in me's done folder.
        assert rpc(client, hub.url, "email.inbox", agent="me")["result"] == []
        mine = rpc(client, hub.url, "email.inbox", agent="me", folder="done")["result"]
        assert mine[0]["replies"][-1]["body"] == "Shipped"
        assert mine[0]["status"] == "replied"
        status = rpc(client, hub.url, "email.status", id=sent["id"])["result"]
        assert status["status"] == "replied", status
        assert status["repliedAt"]
    # The CLI sees what the hub wrote: the files are the truth.
    assert "Ship it" in hub.filebox("--agent", "me", "list", "done", "--all")


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


SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


class Receiver:
    """An HTTP server on 127.0.0.1:0 that verifies each webhook with `standardwebhooks` and
    answers 500 to the first `failures` requests, then 204."""

    def __init__(self, failures: int):
        self.verified = queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["content-length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                payload = Webhook(SECRET).verify(body, headers)  # raises if the signature is bad
                receiver.verified.put((headers["webhook-id"], payload))
                nonlocal failures
                failing = failures > 0
                failures -= 1
                self.send_response(500 if failing else 204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next(self):
        return self.verified.get(timeout=30)


def test_a_callback_is_signed_retried_and_recorded(start_hub):
    receiver = Receiver(failures=1)
    hub = start_hub(
        lambda config: config.update(
            hub={
                "callback_allow": [receiver.url],
                "webhook_secret": SECRET,
                "webhook_first_retry_ms": 10,
            }
        )
    )
    with httpx.Client() as client:
        # An external application (the mailbox `qa` stands for it) asks `dev`, with a callback.
        sent = rpc(
            client, hub.url, "email.send",
            **{"from": "qa", "to": ["dev"], "subject": "Quote", "body": "price?",
               "sourceType": "external",
               "callback": {"type": "webhook", "endpoint": receiver.url + "hooks/filebox"}},
        )["result"]
        rpc(client, hub.url, "email.reply", **{"from": "dev", "id": sent["id"], "body": "42 EUR"})
        first_id, first = receiver.next()
        second_id, second = receiver.next()
        assert first_id == second_id == sent["id"] + "#1"
        assert second["replies"][-1]["body"] == "42 EUR"
        deadline = time.monotonic() + 30
        while True:
            status = rpc(client, hub.url, "email.status", id=sent["id"])["result"]
            if status["webhooks"][0]["state"] == "delivered":
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.02)
        assert status["webhooks"][0]["attempts"] == 2
        refused = rpc(
            client, hub.url, "email.send",
            **{"from": "qa", "to": ["dev"], "subject": "x", "body": "x", "sourceType": "external",
               "callback": {"type": "webhook", "endpoint": "http://169.254.169.254/latest"}},
        )
        assert refused["error"]["data"]["field"] == "callback.endpoint"


class RpcEndpoint:
    """A JSON-RPC endpoint on 127.0.0.1:0 served by the `jsonrpcserver` library, with the method
    `crm.replyArrived`; each call's signature is verified with `standardwebhooks` first."""

    def __init__(self):
        self.calls = queue.Queue()
        endpoint = self

        @jsonrpcserver.method(name="crm.replyArrived")
        def reply_arrived(email):
            endpoint.calls.put(email)
            return jsonrpcserver.Success({"seen": email["id"]})

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["content-length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                Webhook(SECRET).verify(body, headers)  # raises if the signature is bad
                answer = jsonrpcserver.dispatch(body.decode()).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/rpc"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_an_rpc_callback_calls_the_method_on_a_json_rpc_server(start_hub):
    endpoint = RpcEndpoint()
    hub = start_hub(
        lambda config: config.update(hub={"callback_allow": [endpoint.url], "webhook_secret": SECRET})
    )
    with httpx.Client() as client:
        sent = rpc(
            client, hub.url, "email.send",
            **{"from": "qa", "to": ["dev"], "subject": "Quote", "body": "price?", "sourceType": "external",
               "callback": {"type": "rpc", "endpoint": "crm.replyArrived", "url": endpoint.url}},
        )["result"]
        rpc(client, hub.url, "email.reply", **{"from": "dev", "id": sent["id"], "body": "42 EUR"})
        email = endpoint.calls.get(timeout=30)
        assert email["id"] == sent["id"]
        assert email["replies"][-1]["body"] == "42 EUR"
        deadline = time.monotonic() + 30
        while (status := rpc(client, hub.url, "email.status", id=sent["id"])["result"])["webhooks"][0]["state"] != "delivered":
            assert time.monotonic() < deadline, status
            time.sleep(0.02)
        assert status["webhooks"][0]["lastOutcome"].endswith("crm.replyArrived returned a result")
    endpoint.server.shutdown()

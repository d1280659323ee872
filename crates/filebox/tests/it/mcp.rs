//! `filebox mcp`: what the command itself decides before serving (the protocol is tested in
//! crates/filebox-mcp and tests/mcp).

use crate::support::Test;

#[test]
fn listen_refuses_an_address_beyond_this_machine() {
    let t = Test::new().agents(["a"]);
    for address in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8765", "example.com:8765"] {
        let (out, err) = t
            .as_agent("a")
            .args(["mcp", "--listen", address])
            .expect_code(1);
        assert_eq!(out, "");
        assert_eq!(
            err,
            "filebox: error: --listen must be a loopback address (127.0.0.1, ::1, localhost); \
             serving MCP beyond this machine needs a token, which the hub will provide\n",
            "{address}"
        );
    }
}

//! A client of `/ws`, the origin's human client, speaking the hub's own frames
//! (`filebox_hub::proto`): a connection and a login.

use filebox_hub::proto::{UserLoginResponse, WebsocketMessage, cmd};
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// An open `/ws` connection.
pub(crate) type Socket = WebSocketStream<TcpStream>;

/// Upgrade a connection to `/ws`.
pub(crate) async fn connect(addr: std::net::SocketAddr) -> Socket {
    let stream = TcpStream::connect(addr).await.unwrap();
    let url = format!("ws://{addr}/ws");
    let (socket, _) = tokio_tungstenite::client_async(url, stream)
        .await
        .expect("the hub upgrades /ws");
    socket
}

/// Send `UserLogin` with `token`, and wait for the hub's answer to it.
pub(crate) async fn log_in(socket: &mut Socket, token: &str) -> UserLoginResponse {
    let login = WebsocketMessage {
        cmd: cmd::USER_LOGIN.into(),
        str_param: token.to_owned(),
        ..WebsocketMessage::default()
    };
    socket
        .send(Message::Binary(login.encode_to_vec().into()))
        .await
        .unwrap();
    next_login_response(socket)
        .await
        .expect("/ws closed without answering the login")
}

/// The next `UserLogin` answer the hub sends, or `None` when it closes the connection first.
pub(crate) async fn next_login_response(socket: &mut Socket) -> Option<UserLoginResponse> {
    while let Some(frame) = socket.next().await {
        let Ok(Message::Binary(bytes)) = frame else {
            continue;
        };
        let answer = WebsocketMessage::decode(bytes.as_ref()).unwrap();
        if answer.user_login_response.is_some() {
            return answer.user_login_response;
        }
    }
    None
}

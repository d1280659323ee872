//! A client of `/ws`, the origin's human client: the `WebsocketMessage` frames the tests need
//! (by the origin's field numbers), a connection and a login.

use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// An open `/ws` connection.
pub type Socket = WebSocketStream<TcpStream>;

#[derive(Clone, PartialEq, prost::Message)]
pub struct WebsocketMessage {
    #[prost(string, tag = "1")]
    pub cmd: String,
    #[prost(string, tag = "12")]
    pub str_param: String,
    #[prost(message, optional, tag = "23")]
    pub user_login_response: Option<UserLoginResponse>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct UserLoginResponse {
    #[prost(bool, tag = "2")]
    pub success: bool,
    #[prost(string, tag = "3")]
    pub error_message: String,
}

/// Upgrade a connection to `/ws`.
pub async fn connect(addr: std::net::SocketAddr) -> Socket {
    let stream = TcpStream::connect(addr).await.unwrap();
    let url = format!("ws://{addr}/ws");
    let (socket, _) = tokio_tungstenite::client_async(url, stream)
        .await
        .expect("the hub upgrades /ws");
    socket
}

/// Send `UserLogin` with `token`, and wait for the hub's answer to it.
pub async fn log_in(socket: &mut Socket, token: &str) -> UserLoginResponse {
    let login = WebsocketMessage {
        cmd: "UserLogin".into(),
        str_param: token.to_owned(),
        user_login_response: None,
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
pub async fn next_login_response(socket: &mut Socket) -> Option<UserLoginResponse> {
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

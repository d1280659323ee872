//! `answer`: a human's answer until the agent's blocking ask returns, given through the
//! origin's human client protocol (`/ws`, an `AskQuestionReply` frame) and, as the baseline in
//! the same run, the way the page answers (JSON-RPC `email.reply`). The asker is
//! `Mailroom::ask_and_wait` in this process, the call an MCP `ask_question` or a Connect
//! `AskQuestion` blocks in; the /ws client (tungstenite, the hub's own frames from
//! `filebox_hub::proto`) learns each question from its push, and the clock runs from just
//! before the answer is sent to the asker's return. Cases alternate question by question.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use filebox_core::{AnswerWait, AskedBy, QuestionKind, QuestionRequest};
use filebox_hub::proto::{
    AnswerResponse, AskQuestionRequest, McpResultContent, TextContent, WebsocketMessage, cmd,
};
use prost::Message as _;
use serde_json::json;
use tungstenite::{Message, WebSocket};

use crate::fixture::{Fixture, Result, filebox_binary};
use crate::http::Connection;
use crate::hub::{Hub, load_average};
use crate::options::Options;
use crate::report::{Samples, ms, table};

#[derive(Clone, Copy)]
enum Path {
    Ws,
    Rpc,
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let questions = if options.quick { 10 } else { 100 };
    let filebox = filebox_binary()?;
    let load_before = load_average();
    let mailboxes = Fixture::new(options.dir.as_deref(), &["qa".to_owned(), "me".to_owned()])?;
    make_human(&mailboxes.config(), "me")?;
    let hub = Hub::start(
        &filebox,
        &mailboxes.config(),
        &mailboxes.path().join("hub.log"),
    )?;
    let asker = mailboxes.mailroom("qa")?;
    let mut client = Client::connect(&hub)?;
    let mut rpc = Connection::open(hub.address)?;
    let mut samples = (Vec::new(), Vec::new());
    for n in 0..questions {
        let path = if n % 2 == 0 { Path::Ws } else { Path::Rpc };
        let request = QuestionRequest {
            kind: QuestionKind::Question,
            project_directory: "/bench".into(),
            text: format!("Question {n}?"),
            options: Vec::new(),
            client: None,
            asked_by: AskedBy::default(),
        };
        let (answered, returned) = std::thread::scope(|scope| -> Result<(Instant, Instant)> {
            let asking = scope.spawn(|| {
                let wait = AnswerWait {
                    timeout: Some(Duration::from_secs(60)),
                    cancelled: &|| false,
                    stopping: &|| false,
                };
                let asked = asker.ask_and_wait(&request, &wait);
                (asked, Instant::now())
            });
            let id = client.next_question()?;
            let answered = Instant::now();
            match path {
                Path::Ws => client.answer(&id)?,
                Path::Rpc => answer_by_rpc(&mut rpc, &id)?,
            }
            let (asked, returned) = asking.join().map_err(|_| "the asker panicked")?;
            asked?;
            Ok((answered, returned))
        })?;
        let took = returned.saturating_duration_since(answered);
        match path {
            Path::Ws => samples.0.push(took),
            Path::Rpc => samples.1.push(took),
        }
    }
    let rows = [
        ("/ws AskQuestionReply (origin's human client)", samples.0),
        ("baseline: JSON-RPC email.reply (the page)", samples.1),
    ]
    .into_iter()
    .map(|(name, samples)| {
        let samples = Samples::new(samples);
        vec![
            name.to_owned(),
            ms(samples.p50()),
            ms(samples.p95()),
            ms(samples.max()),
        ]
    })
    .collect::<Vec<_>>();
    table(
        &format!(
            "answer → the blocking ask returns, {} questions per path, interleaved (load {load_before} before)",
            questions / 2
        ),
        &["answer sent through", "p50", "p95", "max"],
        &rows,
    );
    Ok(())
}

/// Make `agent` of the config a human (`"kind": "human"`).
fn make_human(config: &std::path::Path, agent: &str) -> Result<()> {
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(config)?)?;
    json["agents"][agent]["kind"] = json!("human");
    std::fs::write(config, json.to_string())?;
    Ok(())
}

fn answer_by_rpc(rpc: &mut Connection, id: &str) -> Result<()> {
    let request = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "email.reply",
        "params": { "from": "me", "id": id, "body": "Yes." },
    });
    let response = rpc.post_json("/rpc", request.to_string().as_bytes())?;
    let answer: serde_json::Value = serde_json::from_slice(&response.body)?;
    if answer.get("result").is_none() {
        return Err(format!("email.reply failed: {answer}").into());
    }
    Ok(())
}

/// The origin's human client, logged in as the human without a token (a loopback hub).
struct Client {
    socket: WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
}

impl Client {
    fn connect(hub: &Hub) -> Result<Client> {
        let (socket, _) = tungstenite::connect(format!("ws://{}/ws", hub.address))?;
        let mut client = Client { socket };
        client.send(&WebsocketMessage {
            cmd: cmd::USER_LOGIN.into(),
            nickname: "bench".into(),
            ..WebsocketMessage::default()
        })?;
        let login = client
            .next(cmd::USER_LOGIN)?
            .user_login_response
            .unwrap_or_default();
        if !login.success {
            return Err(format!("/ws refused the login: {}", login.error_message).into());
        }
        Ok(client)
    }

    fn send(&mut self, message: &WebsocketMessage) -> Result<()> {
        self.socket
            .send(Message::Binary(message.encode_to_vec().into()))?;
        Ok(())
    }

    /// The next frame of command `cmd`, the others skipped.
    fn next(&mut self, cmd: &str) -> Result<WebsocketMessage> {
        loop {
            if let Message::Binary(bytes) = self.socket.read()? {
                let message = WebsocketMessage::decode(bytes.as_ref())?;
                if message.cmd == cmd {
                    return Ok(message);
                }
            }
        }
    }

    /// The id of the next question pushed.
    fn next_question(&mut self) -> Result<String> {
        let pushed = self.next(cmd::ASK_QUESTION)?;
        Ok(pushed
            .ask_question_request
            .ok_or("a push without its request")?
            .id)
    }

    fn answer(&mut self, id: &str) -> Result<()> {
        self.send(&WebsocketMessage {
            cmd: cmd::ASK_QUESTION_REPLY.into(),
            ask_question_request: Some(AskQuestionRequest {
                id: id.to_owned(),
                ..AskQuestionRequest::default()
            }),
            ask_question_response: Some(AnswerResponse {
                id: id.to_owned(),
                contents: vec![McpResultContent {
                    kind: 1,
                    text: Some(TextContent {
                        kind: "text".into(),
                        text: "Yes.".into(),
                    }),
                    ..McpResultContent::default()
                }],
                ..AnswerResponse::default()
            }),
            ..WebsocketMessage::default()
        })
    }
}

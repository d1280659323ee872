//! `wait` wake-up latency: a waiter blocks on an inbox while another thread delivers with
//! `send`; the figure is from just before the send starts to the waiter's return.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use filebox_core::{MessageType, SendRequest};

use crate::Options;
use crate::fixture::{Fixture, Result};
use crate::report::{self, Samples};

pub(crate) fn run(options: &Options) -> Result<()> {
    let rounds = if options.quick { 10 } else { 50 };
    let fixture = Fixture::new(options.dir.as_deref(), &["qa".to_owned(), "dev".to_owned()])?;
    let sender = fixture.mailroom("qa")?;
    let inbox = fixture.mailroom("dev")?.my_mailbox()?;
    inbox.wait_for_mail(Some(Duration::ZERO), &|| false)?;
    let (woke, woken) = mpsc::channel();
    let waiter = std::thread::spawn(move || -> filebox_core::Result<()> {
        for _ in 0..rounds {
            inbox.wait_for_mail(Some(Duration::from_secs(10)), &|| false)?;
            let _ = woke.send(Instant::now());
        }
        Ok(())
    });
    let mut latencies = Vec::new();
    for n in 0..rounds {
        std::thread::sleep(Duration::from_millis(100)); // let the waiter block
        let start = Instant::now();
        sender.send(&SendRequest::new(
            "dev",
            MessageType::new("DIS")?,
            format!("ping {n}"),
        ))?;
        let woke_at = woken.recv_timeout(Duration::from_secs(10))?;
        latencies.push(woke_at.duration_since(start));
    }
    waiter.join().map_err(|_| "waiter panicked")??;
    let samples = Samples::new(latencies);
    report::table(
        "wait: wake-up after a delivery",
        &["deliveries", "p50", "p95", "max"],
        &[vec![
            rounds.to_string(),
            report::ms(samples.p50()),
            report::ms(samples.p95()),
            report::ms(samples.max()),
        ]],
    );
    Ok(())
}

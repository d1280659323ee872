//! Integration tests: the real `filebox` binary in temp dirs, through `support::Test`.

mod support;

mod seed_exchange;
mod format;
mod hand_written;
mod limits;
mod safety;
mod concurrency;
mod crash;
mod search;
mod threads;
mod wait;
mod list_filters;

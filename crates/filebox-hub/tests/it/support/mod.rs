//! What the hub's tests share: the testkit's running hub and its clients, and a `/ws` client.

pub(crate) mod ws;

pub(crate) use filebox_testkit::hub::*;

//! The config loader: any bytes are refused or give a config whose every accessor answers
//! without panicking, and which writes back to JSON that reads as the same config.
#![no_main]

use std::path::PathBuf;

use filebox_core::{Config, ConfigFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = serde_json::from_slice::<ConfigFile>(data) else {
        return;
    };
    let written = serde_json::to_vec_pretty(&file).expect("a config serializes");
    let again: ConfigFile = serde_json::from_slice(&written).expect("a written config reads");
    assert_eq!(again, file);
    let config = Config {
        path: PathBuf::from("/fuzz/.filebox/config.json"),
        file,
    };
    let _ = config.max_body_bytes();
    let _ = config.current_agent(None);
    for id in config.file.agents.keys() {
        // An agent of another hub may have no mailbox path: then a clear error, never a panic.
        if let Ok(path) = config.mailbox_path(id) {
            assert!(path.is_absolute());
        }
        config.agent(id).expect("a listed agent is found");
    }
});

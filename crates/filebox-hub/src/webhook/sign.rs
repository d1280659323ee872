//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>): `webhook-signature` is
//! `v1,` + base64 of HMAC-SHA256 over `"{webhook-id}.{webhook-timestamp}.{body}"`, keyed with
//! the secret (`whsec_` + base64 of the key, as the spec's libraries expect; any other text is
//! taken as the key's bytes).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The prefix of a secret in the spec's form.
const PREFIX: &str = "whsec_";

/// A signing key.
#[derive(Clone)]
pub(crate) struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// The key of the config's `hub.webhook_secret`.
    pub(crate) fn parse(text: &str) -> Result<Secret, String> {
        let key = match text.strip_prefix(PREFIX) {
            Some(encoded) => STANDARD
                .decode(encoded)
                .map_err(|e| format!("hub.webhook_secret: {PREFIX}... is not base64: {e}"))?,
            None => text.as_bytes().to_vec(),
        };
        if key.is_empty() {
            return Err("hub.webhook_secret is empty".into());
        }
        Ok(Secret(key))
    }

    /// The `webhook-signature` value of one attempt.
    pub(crate) fn sign(&self, id: &str, timestamp: i64, body: &[u8]) -> String {
        // HMAC accepts keys of any length: this cannot fail.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes keys of any length");
        mac.update(format!("{id}.{timestamp}.").as_bytes());
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specifications_example_signs_as_published() {
        // The example of the Standard Webhooks reference libraries.
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let signature = secret.sign(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn a_plain_secret_is_its_bytes_and_a_bad_one_is_refused() {
        let plain = Secret::parse("s3cret").unwrap();
        let same = Secret::parse(&format!("whsec_{}", STANDARD.encode("s3cret"))).unwrap();
        assert_eq!(plain.sign("a", 1, b"x"), same.sign("a", 1, b"x"));
        assert!(Secret::parse("whsec_***").is_err());
        assert!(Secret::parse("").is_err());
    }
}

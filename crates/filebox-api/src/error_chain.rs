//! An error and its causes as one line, each cause once: what every surface prints or
//! reports for an error (the CLI's message, a hub task's last error).

use std::error::Error;

/// One sentence: `error` and those of its causes it does not already quote (a core error
/// names its cause in its own message, and that cause is also its source).
pub fn describe(error: &(dyn Error + 'static)) -> String {
    let mut sentence = String::new();
    let causes = std::iter::successors(Some(error), |&cause| cause.source());
    for cause in causes.map(ToString::to_string) {
        if sentence.contains(&cause) {
            continue;
        }
        if !sentence.is_empty() {
            sentence.push_str(": ");
        }
        sentence.push_str(&cause);
    }
    sentence
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a message and, maybe, a source: what `context` makes.
    #[derive(Debug)]
    struct Context(&'static str, Option<Box<dyn Error + 'static>>);

    impl std::fmt::Display for Context {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Context {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref()
        }
    }

    #[test]
    fn an_error_is_described_with_each_cause_once() {
        let io = std::io::Error::other("Too many open files");
        let error = Context("reading /m/inbox: Too many open files", Some(Box::new(io)));
        assert_eq!(describe(&error), "reading /m/inbox: Too many open files");
        let refused = Context("refused", None);
        let error = Context("starting the federation", Some(Box::new(refused)));
        assert_eq!(describe(&error), "starting the federation: refused");
    }
}

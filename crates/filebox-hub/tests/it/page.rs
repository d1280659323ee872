//! The page's asset table: every file is served at its path with its content type, the strict
//! Content Security Policy and `nosniff`, byte for byte as embedded; every file the page or a
//! module names is in the table.

use crate::support;

use filebox_hub::PAGE_ASSETS;
use support::TestHub;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_asset_is_served_with_its_content_type_and_the_csp() {
    let hub = TestHub::start().await;
    for asset in PAGE_ASSETS {
        let response = hub.get(asset.path, &[]).await;
        assert_eq!(response.status, 200, "{}", asset.path);
        assert_eq!(
            response.header("content-type"),
            Some(asset.content_type),
            "{}",
            asset.path
        );
        let csp = response
            .header("content-security-policy")
            .unwrap_or_default();
        assert!(
            csp.contains("script-src 'self'") && csp.contains("default-src 'none'"),
            "{}: {csp:?}",
            asset.path
        );
        assert!(!csp.contains("unsafe-"), "{}: {csp:?}", asset.path);
        assert_eq!(response.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(response.body, asset.body, "{}", asset.path);
    }
    let index = PAGE_ASSETS.iter().find(|asset| asset.path == "/").unwrap();
    assert!(references(index.body).contains(&"/main.js".to_owned()));
    // Every file the page or a module names (`src="/..."`, `href="/..."`, `from "./..."`) is
    // in the table.
    for asset in PAGE_ASSETS {
        for reference in references(asset.body) {
            assert!(
                PAGE_ASSETS.iter().any(|served| served.path == reference),
                "{} names {reference}, which is not served",
                asset.path
            );
        }
    }
    hub.stop().await.unwrap();
}

/// The hub paths a file names: `src="/x"`, `href="/x"` and `from "./x"`.
fn references(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (marker, prefix) in [("src=\"/", "/"), ("href=\"/", "/"), ("from \"./", "/")] {
        for (at, _) in body.match_indices(marker) {
            let rest = &body[at + marker.len()..];
            let name = &rest[..rest.find('"').unwrap_or(rest.len())];
            found.push(format!("{prefix}{name}"));
        }
    }
    found
}

//! `filebox render --xml`: messages as `<teammate-message>` blocks.

use filebox_bridge::render::{self, RenderRequest, TeamSource};

use super::acting::mailroom;
use super::teams::claude_dir;
use crate::cli::{Global, RenderArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &RenderArgs) -> anyhow::Result<Outcome> {
    let team = match (&args.team, &args.member) {
        (Some(team), Some(member)) => Some(TeamSource {
            claude_dir: claude_dir(args.claude_dir.as_deref())?,
            team: team.clone(),
            member: member.clone(),
        }),
        _ => None,
    };
    // A team inbox needs no FileBox config.
    let mailroom = match team {
        Some(_) => None,
        None => Some(mailroom(global)?),
    };
    let request = RenderRequest {
        ids: args.ids.clone(),
        unread: args.unread,
        team,
    };
    let result = render::render(mailroom.as_ref(), &request)?;
    if global.json {
        output::json(&result)?;
    } else if !result.xml.is_empty() {
        output::text(&format!("{}\n", result.xml))?;
    }
    Ok(Outcome::Success)
}

//! What a project request cannot do as asked: input outside a field's rules (400), a slug taken
//! or a project not in a state for the act (409), someone who may not close it (403), and a
//! project that is not there (404).

use catalog_identity::Handle;
use catalog_schemas::Id;

use super::{MAX_GOAL_CHARS, MAX_NAME_CHARS, MAX_SLUG_CHARS, ProjectStatus};
use crate::error::UserClass;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProjectRefusal {
    #[error("slug {}: give 1-{} of a-z, 0-9 and -", catalog_schemas::quote(.0), MAX_SLUG_CHARS)]
    BadSlug(String),
    #[error("name: give 1-{} characters, not {}", MAX_NAME_CHARS, .0)]
    BadName(usize),
    #[error("goal: at most {} characters, not {}", MAX_GOAL_CHARS, .0)]
    BadGoal(usize),
    #[error("set: {0} is not a set")]
    NotASet(Id),
    #[error("scan: {0} is not a scan")]
    NotAScan(Id),
    #[error("within {}: give a year or a month (5785, 5785-07)", catalog_schemas::quote(.0))]
    BadWithin(String),
    #[error("{field}: only with missing {with}")]
    OnlyWith {
        field: &'static str,
        with: &'static str,
    },
    #[error("level: say 1 or 2, not {0}")]
    BadLevel(u8),
    #[error("scan: a proofreading project names the scan whose pages it reads")]
    NeedsScan,
    #[error("item {}: give {want}", catalog_schemas::quote(item))]
    BadItem { item: String, want: &'static str },
    #[error("no project {}", catalog_schemas::quote(.0))]
    NoProject(String),
    #[error("slug {}: a project has it already", catalog_schemas::quote(.0))]
    SlugTaken(String),
    #[error(
        "project {}: it is {status}, so it hands out nothing",
        catalog_schemas::quote(slug)
    )]
    NotOpen { slug: String, status: ProjectStatus },
    #[error("project {}: it has no gap to hand out (open it with `missing`)", catalog_schemas::quote(.0))]
    NoGap(String),
    #[error(
        "project {}: every item of the next {walked} is held by someone; try again later",
        catalog_schemas::quote(slug)
    )]
    AllHeld { slug: String, walked: usize },
    #[error(
        "item: you do not hold {item} in project {}",
        catalog_schemas::quote(slug)
    )]
    NotHeld { slug: String, item: String },
    #[error(
        "@{who} may not close project {}: its creator, keepers of its set and stewards may",
        catalog_schemas::quote(slug)
    )]
    MayNotClose { who: Handle, slug: String },
}

impl ProjectRefusal {
    pub fn class(&self) -> UserClass {
        use ProjectRefusal as R;
        match self {
            R::BadSlug(_)
            | R::BadName(_)
            | R::BadGoal(_)
            | R::NotASet(_)
            | R::NotAScan(_)
            | R::BadWithin(_)
            | R::OnlyWith { .. }
            | R::BadLevel(_)
            | R::NeedsScan
            | R::BadItem { .. } => UserClass::BadRequest,
            R::NoProject(_) => UserClass::NotFound,
            R::SlugTaken(_)
            | R::NotOpen { .. }
            | R::NoGap(_)
            | R::AllHeld { .. }
            | R::NotHeld { .. } => UserClass::State,
            R::MayNotClose { .. } => UserClass::Forbidden,
        }
    }
}

//! What is made from a held PDF, in the background once its bytes arrive: a page image
//! (`IMAGE_WIDTH` px wide) and a thumbnail of every page, a page hash and ink share of each
//! (for `/similar` and the title-page guess), and the title-page guess itself. Everything is
//! kept in the blob store beside the bytes (`derived/<sha256>/…`), with `info.json` written last:
//! a file has derivations exactly when its `info.json` is there, so a crash half way leaves
//! nothing that claims to be done, and the next upload of the same bytes makes them again.
//! Derivations are a cache of the bytes (made again from them at will), never catalog data.

use catalog_blobs::{Blobs, Sha256};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::state::AppState;

/// Page images' width in pixels: enough to read a printed page on a large screen.
pub const IMAGE_WIDTH: u32 = 1_200;
/// Thumbnails' width in pixels.
pub const THUMB_WIDTH: u32 = 200;
/// Pages whose hashes are kept for finding alike files (a file's first pages tell it).
pub const HASHED_PAGES: u32 = 50;
const INFO: &str = "info.json";

/// What was made from one file, as kept in `derived/<sha256>/info.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Derived {
    pub pages: u32,
    /// Each page image's width and height, in page order.
    pub images: Vec<(u32, u32)>,
    pub thumbs: Vec<(u32, u32)>,
    /// The first [`HASHED_PAGES`] pages' difference hashes.
    pub hashes: Vec<u64>,
    pub title: Option<(u32, Vec<String>)>,
}

/// One kind of thing made from a file.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Derivation {
    /// page-images or thumbnails.
    kind: &'static str,
    count: u32,
    width: u32,
    /// Where page N is: replace `{page}`.
    url: String,
}

/// A page image or thumbnail: where it is served and its size in pixels.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Picture {
    pub url: String,
    pub width: u32,
    pub height: u32,
}

/// An item named in a file's answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ItemRef {
    pub id: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Derived {
    pub fn page_images(&self) -> u32 {
        self.images.len() as u32
    }

    pub fn derivations_of(&self, hex: &str) -> Vec<Derivation> {
        vec![
            Derivation {
                kind: "page-images",
                count: self.images.len() as u32,
                width: IMAGE_WIDTH,
                url: format!("/objects/{hex}/pages/{{page}}.jpg"),
            },
            Derivation {
                kind: "thumbnails",
                count: self.thumbs.len() as u32,
                width: THUMB_WIDTH,
                url: format!("/objects/{hex}/thumbs/{{page}}.jpg"),
            },
        ]
    }

    /// Page `page`'s image and thumbnail, when made.
    pub fn pictures(&self, hex: &str, page: u32) -> Option<(Picture, Picture)> {
        let at = (page as usize).checked_sub(1)?;
        let (&(width, height), &(tw, th)) = (self.images.get(at)?, self.thumbs.get(at)?);
        Some((
            Picture {
                url: format!("/objects/{hex}/pages/{page}.jpg"),
                width,
                height,
            },
            Picture {
                url: format!("/objects/{hex}/thumbs/{page}.jpg"),
                width: tw,
                height: th,
            },
        ))
    }

    pub fn measured(&self) -> serde_json::Value {
        serde_json::json!({ "pages": self.pages, "pageHashes": self.hashes.len() })
    }

    pub fn title_guess(&self) -> Option<(u32, Vec<String>)> {
        self.title.clone()
    }
}

/// A file's derivations, when made.
pub async fn derived(state: &AppState, sha: &[u8; 32]) -> Result<Option<Derived>, ApiError> {
    let Some(blobs) = state.blobs.as_ref() else {
        return Ok(None);
    };
    read(blobs, &Sha256::from_bytes(*sha)).await
}

async fn read(blobs: &Blobs, sha: &Sha256) -> Result<Option<Derived>, ApiError> {
    let Some(bytes) = blobs
        .read_derived(sha, INFO)
        .await
        .map_err(crate::routes::files::blob_error)?
    else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ApiError::Internal(format!("derivations of {sha}: {e}")))
}

/// Makes a PDF's derivations on a thread of its own, unless they are made already. Failures are
/// logged: a PDF poppler cannot read has no page images, and says so by having none.
pub fn spawn(blobs: Blobs, sha: Sha256, workflow: catalog_workflow::Workflow) {
    // One making of a file at a time: an upload and a reader asking for its pages may both
    // start one.
    if !making().insert(*sha.as_bytes()) {
        return;
    }
    let handle = tokio::runtime::Handle::current();
    let key = *sha.as_bytes();
    // A thread of its own, not the runtime's blocking pool: a making takes minutes for a long
    // PDF, and it awaits the blob store, whose reads run on that pool; holding a pool thread
    // while waiting for another could use up a small pool (`--blocking-threads`).
    let started = std::thread::Builder::new()
        .name("derive".into())
        .spawn(move || {
            if let Err(e) = make(&handle, &blobs, &sha, &workflow) {
                tracing::warn!(%sha, error = %e, "page images not made");
            }
            making().remove(sha.as_bytes());
        });
    if let Err(e) = started {
        tracing::warn!(error = %e, "page images not made: no thread to make them on");
        making().remove(&key);
    }
}

fn making() -> std::sync::MutexGuard<'static, std::collections::HashSet<[u8; 32]>> {
    static MAKING: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<[u8; 32]>>> =
        std::sync::OnceLock::new();
    MAKING
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A PDF's derivations, starting to make them when its bytes are held and they are not made
/// (a scan added without an upload, or a restart that cut a making short).
pub async fn derived_or_start(
    state: &AppState,
    sha: &[u8; 32],
) -> Result<Option<Derived>, ApiError> {
    let found = derived(state, sha).await?;
    if found.is_none()
        && let Some(blobs) = state.blobs.as_ref()
    {
        let key = Sha256::from_bytes(*sha);
        if blobs
            .size(&key)
            .await
            .map_err(crate::routes::files::blob_error)?
            .is_some()
        {
            spawn(blobs.clone(), key, state.workflow.clone());
        }
    }
    Ok(found)
}

/// Makes them; a failure is said in words, for the log.
fn make(
    handle: &tokio::runtime::Handle,
    blobs: &Blobs,
    sha: &Sha256,
    workflow: &catalog_workflow::Workflow,
) -> Result<(), String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    if let Some(made) = handle.block_on(read(blobs, sha)).ok().flatten() {
        // Made before; the index of alike pages is written again (it is a cache too).
        return workflow
            .index_page_hashes(sha.as_bytes(), &made.hashes)
            .map_err(|e| text(&e));
    }
    let dir = tempfile::tempdir().map_err(|e| text(&e))?;
    let copy = handle
        .block_on(blobs.local_copy(sha, dir.path()))
        .map_err(|e| text(&e))?;
    let path = copy.path();
    let info = catalog_pdf::info(path).map_err(|e| text(&e))?;
    let mut images = Vec::with_capacity(info.pages as usize);
    let mut thumbs = Vec::with_capacity(info.pages as usize);
    for (width, out, prefix) in [
        (IMAGE_WIDTH, &mut images, "p"),
        (THUMB_WIDTH, &mut thumbs, "t"),
    ] {
        catalog_pdf::render(path, 1, info.pages, width, |page| {
            out.push((page.width, page.height));
            let name = format!("{prefix}{}.jpg", page.page);
            handle.block_on(blobs.put_derived(sha, &name, page.jpeg.into()))
        })
        .map_err(|e| text(&e))?;
    }
    let looks = catalog_pdf::looks(path, 1, info.pages.min(HASHED_PAGES)).map_err(|e| text(&e))?;
    let title = catalog_pdf::guess_title_page(&looks).map(|g| (g.page, g.reasons));
    let derived = Derived {
        pages: info.pages,
        images,
        thumbs,
        hashes: looks.iter().map(|l| l.hash).collect(),
        title,
    };
    let bytes = serde_json::to_vec(&derived).map_err(|e| text(&e))?;
    handle
        .block_on(blobs.put_derived(sha, INFO, bytes.into()))
        .map_err(|e| text(&e))?;
    workflow
        .index_page_hashes(sha.as_bytes(), &derived.hashes)
        .map_err(|e| text(&e))?;
    tracing::info!(%sha, pages = info.pages, "page images made");
    Ok(())
}

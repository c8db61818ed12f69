//! The captcha a reader without an account solves to file a takedown or a family request,
//! checked by the verifier the operator configured (`--captcha-verify-url`,
//! `--captcha-secret-file`): the `siteverify` protocol hCaptcha, Cloudflare Turnstile and
//! reCAPTCHA share — a form of `secret`, `response` and `remoteip` posted to the verifier, which
//! answers JSON with `success`. Without one configured (development), any non-empty token is
//! taken, and the hourly limit per address still holds.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use crate::error::ApiError;

/// How long the verifier may take to answer.
const VERIFY_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest token sent on (the providers' are about 2 KB).
pub const MAX_TOKEN_BYTES: usize = 8_192;

/// The configured verifier.
#[derive(Clone)]
pub struct CaptchaVerifier {
    url: String,
    secret: String,
    client: reqwest::Client,
}

impl fmt::Debug for CaptchaVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CaptchaVerifier")
            .field("url", &self.url)
            .field("secret", &"…")
            .finish()
    }
}

#[derive(serde::Deserialize)]
struct Verdict {
    success: bool,
}

impl CaptchaVerifier {
    pub fn new(url: &str, secret: &str) -> Result<CaptchaVerifier, String> {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(format!("captcha verifier {url:?}: give an http(s) address"));
        }
        let secret = secret.trim();
        if secret.is_empty() {
            return Err("the captcha secret is empty".into());
        }
        let client = reqwest::Client::builder()
            .timeout(VERIFY_TIMEOUT)
            .build()
            .map_err(|e| format!("captcha verifier client: {e}"))?;
        Ok(CaptchaVerifier {
            url: url.to_owned(),
            secret: secret.to_owned(),
            client,
        })
    }

    /// Whether the verifier says `token` was solved, from `remote`.
    pub async fn verify(&self, token: &str, remote: IpAddr) -> Result<bool, ApiError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Ok(false);
        }
        let form = [
            ("secret", self.secret.as_str()),
            ("response", token),
            ("remoteip", &remote.to_string()),
        ];
        let answer = self
            .client
            .post(&self.url)
            .form(&form)
            .send()
            .await
            .map_err(|e| ApiError::Internal(format!("captcha verifier: {e}")))?;
        if !answer.status().is_success() {
            return Err(ApiError::Internal(format!(
                "captcha verifier answered {}",
                answer.status()
            )));
        }
        let verdict: Verdict = answer
            .json()
            .await
            .map_err(|e| ApiError::Internal(format!("captcha verifier's answer: {e}")))?;
        Ok(verdict.success)
    }
}

/// Checks the captcha of a request from a reader without an account.
pub async fn check(
    verifier: Option<&CaptchaVerifier>,
    token: Option<&str>,
    remote: IpAddr,
) -> Result<(), ApiError> {
    let refused = |r| ApiError::Workflow(catalog_workflow::Error::from(r));
    let Some(token) = token.map(str::trim).filter(|t| !t.is_empty()) else {
        return Err(refused(catalog_workflow::FileRefusal::NoCaptcha));
    };
    match verifier {
        None => Ok(()),
        Some(v) if v.verify(token, remote).await? => Ok(()),
        Some(_) => Err(refused(catalog_workflow::FileRefusal::CaptchaFailed)),
    }
}

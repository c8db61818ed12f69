//! `catalog account add`, `catalog account rename` and `catalog token add`.

use std::io::BufRead as _;
use std::path::Path;

use anyhow::Context as _;
use catalog_workflow::{Handle, NewAccount, Scopes};

use super::args::{AccountAddArgs, AccountRenameArgs, TokenAddArgs};
use super::store;

pub fn add_account(data: &Path, a: AccountAddArgs) -> anyhow::Result<()> {
    let handle = Handle::parse(&a.handle)?;
    let password = if a.password_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("cannot read the password from stdin")?;
        let password = line.trim_end_matches(['\r', '\n']).to_owned();
        anyhow::ensure!(!password.is_empty(), "the password on stdin is empty");
        Some(password)
    } else {
        None
    };
    let services = store::services(data)?;
    let account = services.workflow.identity().add_account(NewAccount {
        name: a.name.unwrap_or_else(|| handle.as_str().to_owned()),
        handle,
        steward: a.steward,
        trusted: a.trusted,
        password,
    })?;
    println!(
        "account @{} made (id {})",
        account.handle.as_str(),
        account.id
    );
    Ok(())
}

pub fn rename_account(data: &Path, a: AccountRenameArgs) -> anyhow::Result<()> {
    let old = Handle::parse(&a.old)?;
    let new = Handle::parse(&a.new)?;
    let services = store::services(data)?;
    let account = services.workflow.identity().rename(&old, &new)?;
    println!(
        "@{old} is now @{} (id {}); @{old} keeps finding them",
        account.handle.as_str(),
        account.id
    );
    Ok(())
}

pub fn add_token(data: &Path, a: TokenAddArgs) -> anyhow::Result<()> {
    let handle = Handle::parse(&a.handle)?;
    let scopes = Scopes::parse(&a.scopes)?;
    let services = store::services(data)?;
    let (info, token) =
        services
            .workflow
            .identity()
            .create_token(&handle, &a.name, scopes, a.expires_in_days)?;
    tracing::info!(token = %info.id, prefix = %info.prefix, "token made");
    println!("{token}");
    Ok(())
}

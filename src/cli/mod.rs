//! The subcommands; `run` picks one.

pub mod args;
mod backup;
mod control;
mod editions;
mod maintenance;
mod mirror;
mod people;
mod serve;
mod store;

use std::process::ExitCode;

use args::{AccountCommand, Cli, Command, TokenCommand};

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let data = cli.data;
    match cli.command {
        Command::Serve(a) => serve::serve(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Account {
            command: AccountCommand::Add(a),
        } => people::add_account(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Account {
            command: AccountCommand::Rename(a),
        } => people::rename_account(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Token {
            command: TokenCommand::Add(a),
        } => people::add_token(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Rebuild(a) => maintenance::rebuild(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Verify => maintenance::verify(&data),
        Command::Backup(a) => backup::backup(&data, &a.out).map(|()| ExitCode::SUCCESS),
        Command::RestoreBackup(a) => backup::restore(&data, &a.backup).map(|()| ExitCode::SUCCESS),
        Command::Mirror(a) => mirror::mirror(&data, a).map(|()| ExitCode::SUCCESS),
        Command::Edition(a) => editions::edition(&data, a).map(|()| ExitCode::SUCCESS),
    }
}

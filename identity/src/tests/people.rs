//! Handle changes and the alias rules, and finding people by handle prefix and name part.

use super::{Harness, handle};
use crate::{Error, MAX_FORMER_HANDLES, NewAccount, Scopes};

fn named(h: &Harness, handle_text: &str, name: &str) -> crate::Account {
    h.identity
        .add_account(NewAccount {
            handle: handle(handle_text),
            name: name.into(),
            steward: false,
            trusted: false,
            password: None,
        })
        .unwrap()
}

#[test]
fn a_rename_keeps_the_account_and_the_old_handle_as_its_alias() {
    let h = Harness::new();
    let before = h.account("rivka", false);
    let after = h
        .identity
        .rename(&handle("rivka"), &handle("rivka-c"))
        .unwrap();
    assert_eq!(after.id, before.id);
    assert_eq!(after.handle, handle("rivka-c"));
    assert_eq!(after.former_handles, vec![handle("rivka")]);
    let by_old = h
        .identity
        .account_by_handle(&handle("rivka"))
        .unwrap()
        .unwrap();
    assert_eq!(
        by_old, after,
        "the old handle finds the person as they are now"
    );
    assert!(after.answers_to(&handle("rivka")) && after.answers_to(&handle("rivka-c")));
    assert!(!after.answers_to(&handle("other")));
    let session = h.session(&handle("rivka-c"));
    assert!(
        session.answers_to(&handle("rivka")),
        "a principal knows its former handles"
    );
}

#[test]
fn a_token_authenticated_before_a_rename_speaks_for_the_new_handle_after_it() {
    let h = Harness::new();
    h.account("rivka", false);
    let (_, token) = h
        .identity
        .create_token(&handle("rivka"), "t", Scopes::READ, None)
        .unwrap();
    // Authenticated once, the token is remembered (token_cache); the rename must forget it.
    let before = h.identity.authenticate_token(&token).unwrap();
    assert_eq!(before.handle, handle("rivka"));
    h.identity
        .rename(&handle("rivka"), &handle("rivka-c"))
        .unwrap();
    let after = h.identity.authenticate_token(&token).unwrap();
    assert_eq!(after.handle, handle("rivka-c"));
    assert_eq!(after.former_handles, vec![handle("rivka")]);
}

#[test]
fn an_old_handle_is_never_given_to_anyone_else() {
    let h = Harness::new();
    h.account("rivka", false);
    h.account("levi", false);
    h.identity
        .rename(&handle("rivka"), &handle("rivka-c"))
        .unwrap();
    let again = h.identity.add_account(NewAccount {
        handle: handle("rivka"),
        name: "Another".into(),
        steward: false,
        trusted: false,
        password: None,
    });
    assert!(matches!(again, Err(Error::BadInput(_))), "{again:?}");
    let onto = h.identity.rename(&handle("levi"), &handle("rivka"));
    assert!(matches!(onto, Err(Error::HandleClaimed(_))), "{onto:?}");
    let taken_now = h.identity.rename(&handle("levi"), &handle("rivka-c"));
    assert!(
        matches!(taken_now, Err(Error::HandleClaimed(_))),
        "{taken_now:?}"
    );
}

#[test]
fn renames_name_the_handle_held_now_and_may_take_back_an_own_former_one() {
    let h = Harness::new();
    h.account("rivka", false);
    h.identity
        .rename(&handle("rivka"), &handle("rivka-c"))
        .unwrap();
    let by_old = h.identity.rename(&handle("rivka"), &handle("rivka-d"));
    assert!(
        matches!(&by_old, Err(e @ Error::BadInput(_)) if e.to_string().contains("@rivka-c")),
        "{by_old:?}"
    );
    let same = h.identity.rename(&handle("rivka-c"), &handle("rivka-c"));
    assert!(matches!(same, Err(Error::BadInput(_))), "{same:?}");
    let back = h
        .identity
        .rename(&handle("rivka-c"), &handle("rivka"))
        .unwrap();
    assert_eq!(back.handle, handle("rivka"));
    assert_eq!(back.former_handles, vec![handle("rivka-c")]);
    let missing = h.identity.rename(&handle("nobody"), &handle("somebody"));
    assert!(matches!(missing, Err(Error::NoAccount(_))), "{missing:?}");
}

#[test]
fn an_account_leaves_at_most_so_many_handles_behind() {
    let h = Harness::new();
    h.account("h0", false);
    for n in 0..MAX_FORMER_HANDLES {
        h.identity
            .rename(&handle(&format!("h{n}")), &handle(&format!("h{}", n + 1)))
            .unwrap();
    }
    let last = format!("h{MAX_FORMER_HANDLES}");
    let past = h.identity.rename(&handle(&last), &handle("h-new"));
    assert!(matches!(past, Err(Error::TooManyRenames(_))), "{past:?}");
    // Taking back an own former handle leaves none more behind, so it is still allowed.
    let back = h.identity.rename(&handle(&last), &handle("h0")).unwrap();
    assert_eq!(back.former_handles.len(), MAX_FORMER_HANDLES);
}

#[test]
fn people_are_found_by_handle_prefix_once_each_as_they_are_now() {
    let h = Harness::new();
    h.account("mendel", false);
    h.account("menucha", false);
    h.account("levi", false);
    h.identity
        .rename(&handle("mendel"), &handle("menachem"))
        .unwrap();
    let found: Vec<String> = h
        .identity
        .find_by_handle("@MEN", 10)
        .unwrap()
        .into_iter()
        .map(|a| a.handle.to_string())
        .collect();
    assert_eq!(
        found,
        vec!["menachem", "menucha"],
        "the renamed person once"
    );
    assert_eq!(h.identity.find_by_handle("men", 1).unwrap().len(), 1);
    assert!(h.identity.find_by_handle("x", 10).unwrap().is_empty());
}

#[test]
fn people_are_found_by_any_part_of_their_name() {
    let h = Harness::new();
    named(&h, "a1", "Rivka  Cohen");
    named(&h, "a2", "רבקה לוי");
    named(&h, "a3", "Coheleth");
    let names = |q: &str| -> Vec<String> {
        h.identity
            .find_by_name(q, 10)
            .unwrap()
            .into_iter()
            .map(|a| a.handle.to_string())
            .collect()
    };
    assert_eq!(names("coh"), vec!["a1", "a3"]);
    assert_eq!(names("a c"), vec!["a1"], "white space folds");
    assert_eq!(names("ka cOHEN"), vec!["a1"]);
    assert_eq!(names("לוי"), vec!["a2"]);
    assert_eq!(names("k"), vec!["a1"]);
    assert!(names("cohens").is_empty());
    assert!(names("   ").is_empty());
    assert_eq!(h.identity.find_by_name("coh", 1).unwrap().len(), 1);
}

#[test]
fn the_name_index_is_filled_once_for_accounts_made_before_it() {
    let h = Harness::new();
    named(&h, "a1", "Rivka Cohen");
    // Forget the index, as a store made before it would be.
    let kv = h.identity.kv();
    let mut batch = kv.batch();
    for (key, _) in kv
        .scan_raw_prefix(crate::families::ACCOUNT_NAMES, b"")
        .unwrap()
    {
        batch.delete(crate::families::ACCOUNT_NAMES, &key).unwrap();
    }
    batch.set_counter("people-names-indexed", 0).unwrap();
    kv.write(batch).unwrap();
    assert!(h.identity.find_by_name("cohen", 10).unwrap().is_empty());
    h.identity.index_people().unwrap();
    assert_eq!(h.identity.find_by_name("cohen", 10).unwrap().len(), 1);
}

#[test]
fn a_long_name_query_checks_at_most_so_many_names() {
    use crate::MAX_NAME_CANDIDATES;
    // Every account's name holds "abc"; only the last one holds "abcz". A query longer than
    // three characters seeks "abc" and checks names in account order, at most the cap.
    for fillers in [MAX_NAME_CANDIDATES - 1, MAX_NAME_CANDIDATES] {
        let h = Harness::new();
        for n in 0..fillers {
            named(&h, &format!("f{n}"), &format!("abc {n}"));
        }
        named(&h, "target", "abcz");
        let found = h.identity.find_by_name("abcz", 10).unwrap();
        let expected = usize::from(fillers < MAX_NAME_CANDIDATES);
        assert_eq!(found.len(), expected, "{fillers} names before it");
        // A query of three characters or fewer is its own run: no check, no cap on the way.
        assert_eq!(h.identity.find_by_name("bcz", 10).unwrap().len(), 1);
    }
}

#[test]
fn generated_accounts_are_found_as_added_ones_are() {
    let h = Harness::new();
    let first = named(&h, "first", "Rivka Cohen");
    let people: Vec<_> = (0..5_003)
        .map(|i| (handle(&format!("person-{i}")), format!("Chana Katz {i}")))
        .collect();
    let made = h.identity.generate_accounts(&people).unwrap();
    assert_eq!(made.len(), people.len());
    assert_eq!(
        made[0].id.0,
        first.id.0 + 1,
        "numbered after the accounts there"
    );
    assert_eq!(h.identity.accounts_made().unwrap(), people.len() as u64 + 1);
    let last = h
        .identity
        .account_by_handle(&handle("person-5002"))
        .unwrap();
    assert_eq!(
        last,
        Some(made[5_002].clone()),
        "found by handle, across batches"
    );
    let by_name = h.identity.find_by_name("5002", 10).unwrap();
    assert_eq!(by_name, vec![made[5_002].clone()]);
    assert_eq!(h.identity.find_by_handle("person-500", 3).unwrap().len(), 3);
    let next = named(&h, "after", "Levi Gold");
    assert_eq!(
        next.id.0,
        made[5_002].id.0 + 1,
        "the account counter moved on"
    );
    assert!(
        h.identity
            .add_account(NewAccount {
                handle: handle("person-7"),
                name: "Someone".into(),
                steward: false,
                trusted: false,
                password: None,
            })
            .is_err(),
        "a generated handle is taken"
    );
}

//! The store's tests: publication, moves and rewrites, recovery after a kill at each step,
//! staging with and without a name.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use crate::error::Error;
use crate::fs::beneath::Place;
use crate::store::checked_dirs::{DirSeen, RECOVERED};
use crate::store::held_here::{HeldHere, is_held_here};

use super::moves::Intent;
use super::publish::Linkable;
use super::rewrite::exchange_unsupported_on;
use super::staging::{STAGED, Staged, mailbox_of_tmp, same_file};
use super::*;

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let tmp = root.path().join("tmp");
    let inbox = root.path().join("inbox");
    let done = root.path().join("done");
    for d in [&tmp, &inbox, &done] {
        create_private_dir(d).unwrap();
    }
    (root, tmp, inbox, done)
}

#[test]
fn publish_new_never_replaces() {
    let (_root, tmp, inbox, _) = setup();
    publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let err = publish_new(&tmp, &inbox, "a.md", b"two").unwrap_err();
    assert!(
        matches!(err, Error::Io { ref source, .. } if source.kind() == ErrorKind::AlreadyExists)
    );
    assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"one");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn second_move_of_the_same_file_is_gone() {
    let (_root, tmp, inbox, done) = setup();
    publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let dest = || {
        vec![Destination {
            tmp: tmp.clone(),
            dir: done.clone(),
            name: "a.md".into(),
        }]
    };
    let first = move_message(&tmp, &inbox.join("a.md"), &dest(), |b| {
        Ok(vec![[b, b"+"].concat()])
    })
    .unwrap();
    assert!(matches!(first, Moved::Done));
    let second =
        move_message(&tmp, &inbox.join("a.md"), &dest(), |b| Ok(vec![b.to_vec()])).unwrap();
    assert!(matches!(second, Moved::Gone));
    assert_eq!(fs::read(done.join("a.md")).unwrap(), b"one+");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn a_rewrite_swaps_in_the_new_version_under_the_same_name_and_leaves_nothing_in_tmp() {
    let (_root, tmp, inbox, _) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let before = fs::metadata(&path).unwrap().ino();
    let rewritten = rewrite_in_place(&tmp, &path, |b| Ok([b, b"+"].concat())).unwrap();
    assert_eq!(rewritten, Rewritten::Done);
    assert_eq!(fs::read(&path).unwrap(), b"one+");
    assert_ne!(
        fs::metadata(&path).unwrap().ino(),
        before,
        "a new file, never one changed in place"
    );
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn rewriters_of_one_message_take_turns_and_lose_no_line() {
    let (_root, tmp, inbox, _) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"lines:").unwrap();
    std::thread::scope(|scope| {
        for n in 0..8u8 {
            let (tmp, path) = (&tmp, &path);
            scope.spawn(move || {
                let line = [b'0' + n];
                let rewritten = rewrite_in_place(tmp, path, |b| {
                    // Slow enough that the others arrive while this one works.
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    Ok([b, &line[..]].concat())
                });
                assert_eq!(rewritten.unwrap(), Rewritten::Done);
            });
        }
    });
    let mut lines = fs::read(&path).unwrap()[b"lines:".len()..].to_vec();
    lines.sort();
    assert_eq!(lines, b"01234567");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn a_rewrite_in_place_is_journaled_as_one_whether_names_are_exchanged_or_moved() {
    use crate::store::journal::{Kind, Since, snapshot};
    let (root, tmp, inbox, _) = setup();
    create_private_dir(&root.path().join(".filebox")).unwrap();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let plus = |b: &[u8]| Ok([b, b"+"].concat());
    assert_eq!(
        rewrite_in_place(&tmp, &path, plus).unwrap(),
        Rewritten::Done
    );
    // A file system that cannot exchange names: the message moves onto its own name.
    exchange_unsupported_on(fs::metadata(&path).unwrap().dev());
    assert_eq!(
        rewrite_in_place(&tmp, &path, plus).unwrap(),
        Rewritten::Done
    );
    assert_eq!(fs::read(&path).unwrap(), b"one++");
    let entries = snapshot(&inbox, Since::NoJournal).unwrap().entries.unwrap();
    let kinds: Vec<(Kind, &str)> = entries.iter().map(|e| (e.kind, e.name.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (Kind::Added, "a.md"),
            (Kind::Rewritten, "a.md"),
            (Kind::Removed, "a.md"),
            (Kind::Rewritten, "a.md")
        ]
    );
}

#[test]
fn a_version_replaced_during_a_rewrite_is_kept_and_the_rewrite_is_gone() {
    let (_root, tmp, inbox, _) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    // Another tool, which takes no turn, replaces it while the rewrite works.
    let rewritten = rewrite_in_place(&tmp, &path, |b| {
        fs::write(inbox.join("edited"), b"edited").unwrap();
        fs::rename(inbox.join("edited"), &path).unwrap();
        Ok([b, b"+"].concat())
    })
    .unwrap();
    assert_eq!(rewritten, Rewritten::Gone);
    assert_eq!(fs::read(&path).unwrap(), b"edited");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn a_delivery_under_the_same_name_waits_for_the_rewrite_in_progress() {
    let (_root, tmp, inbox, _) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let (started, start) = std::sync::mpsc::channel();
    let rewritten = std::thread::scope(|scope| {
        let rewrite = scope.spawn(|| {
            rewrite_in_place(&tmp, &path, |b| {
                started.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(50));
                Ok([b, b"+"].concat())
            })
        });
        start.recv().unwrap();
        publish_replace(&tmp, &inbox, "a.md", b"delivered").unwrap();
        rewrite.join().unwrap().unwrap()
    });
    // The rewrite went in whole, then the delivery replaced it: neither undid the other.
    assert_eq!(rewritten, Rewritten::Done);
    assert_eq!(fs::read(&path).unwrap(), b"delivered");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn a_rewrite_that_changes_nothing_writes_nothing() {
    let (_root, tmp, inbox, _) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let before = fs::metadata(&path).unwrap().ino();
    let rewritten = rewrite_in_place(&tmp, &path, |b| Ok(b.to_vec())).unwrap();
    assert_eq!(rewritten, Rewritten::Unchanged);
    assert_eq!(fs::metadata(&path).unwrap().ino(), before);
}

#[test]
fn a_message_moved_during_a_rewrite_stays_where_it_went() {
    let (_root, tmp, inbox, done) = setup();
    let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let rewritten = rewrite_in_place(&tmp, &path, |b| {
        fs::rename(&path, done.join("a.md")).unwrap();
        Ok([b, b"+"].concat())
    })
    .unwrap();
    assert_eq!(rewritten, Rewritten::Gone);
    assert!(!path.exists(), "never published again where it left");
    assert_eq!(fs::read(done.join("a.md")).unwrap(), b"one");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    assert_eq!(
        rewrite_in_place(&tmp, &path, |b| Ok(b.to_vec())).unwrap(),
        Rewritten::Gone
    );
}

#[test]
fn failed_rewrite_puts_the_message_back() {
    let (_root, tmp, inbox, done) = setup();
    publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
    let dest = vec![Destination {
        tmp: tmp.clone(),
        dir: done.clone(),
        name: "a.md".into(),
    }];
    let result = move_message(&tmp, &inbox.join("a.md"), &dest, |_| {
        Err(Error::invalid("test", "no", "refused by the test"))
    });
    assert!(result.is_err());
    assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"one");
    assert!(!done.join("a.md").exists());
}

#[test]
fn recovery_rolls_back_uncommitted_and_forward_committed() {
    let (_root, tmp, inbox, done) = setup();
    // An uncommitted move: intent + claim, as a killed process leaves them.
    let intent = Intent {
        origin: inbox.join("a.md"),
        claim: tmp.join("x.claim"),
        outputs: vec![(tmp.join("x.0.new"), done.join("a.md"))],
    };
    fs::write(&intent.claim, b"a").unwrap();
    fs::write(tmp.join("x.0.new"), b"a2").unwrap();
    fs::write(tmp.join("x.intent"), intent.encode()).unwrap();
    // A committed one.
    let committed = Intent {
        origin: inbox.join("b.md"),
        claim: tmp.join("y.claim"),
        outputs: vec![(tmp.join("y.0.new"), done.join("b.md"))],
    };
    fs::write(&committed.claim, b"b").unwrap();
    fs::write(tmp.join("y.0.new"), b"b2").unwrap();
    fs::write(tmp.join("y.commit"), committed.encode()).unwrap();
    fs::write(tmp.join("z.part"), b"half").unwrap();

    let report = recover(&tmp).unwrap();
    assert_eq!(
        report,
        Recovery {
            removed: 1,
            rolled_back: 1,
            rolled_forward: 1
        }
    );
    assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"a");
    assert!(!done.join("a.md").exists());
    assert_eq!(fs::read(done.join("b.md")).unwrap(), b"b2");
    assert!(!inbox.join("b.md").exists());
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

/// What a process killed after claiming `inbox/a.md` (move `x`, to `done/`) leaves: the
/// claim holding `claimed` and the intent record.
fn killed_after_claiming(tmp: &Path, inbox: &Path, done: &Path, claimed: &[u8]) -> Intent {
    let intent = Intent {
        origin: inbox.join("a.md"),
        claim: tmp.join("x.claim"),
        outputs: vec![(tmp.join("x.0.new"), done.join("a.md"))],
    };
    fs::write(&intent.claim, claimed).unwrap();
    fs::write(tmp.join("x.intent"), intent.encode()).unwrap();
    intent
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn rolling_back_onto_a_taken_name_keeps_both_versions() {
    let (_root, tmp, inbox, done) = setup();
    killed_after_claiming(&tmp, &inbox, &done, b"claimed");
    fs::write(inbox.join("a.md"), b"arrived meanwhile").unwrap();
    recover(&tmp).unwrap();
    assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"arrived meanwhile");
    assert_eq!(
        fs::read(inbox.join("a.recovered-x.md")).unwrap(),
        b"claimed"
    );
    assert!(names(&tmp).is_empty());
}

#[test]
fn a_recovery_killed_after_linking_back_is_finished_without_a_second_copy() {
    let (_root, tmp, inbox, done) = setup();
    let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
    // The first recovery linked the claim back, then died before removing the claim.
    fs::hard_link(&intent.claim, &intent.origin).unwrap();
    let report = recover(&tmp).unwrap();
    assert_eq!(report.rolled_back, 1);
    assert_eq!(names(&inbox), ["a.md"]);
    assert_eq!(fs::read(&intent.origin).unwrap(), b"claimed");
    assert!(names(&tmp).is_empty());
}

#[test]
fn a_recovery_killed_after_keeping_a_version_aside_keeps_it_once() {
    let (_root, tmp, inbox, done) = setup();
    let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
    fs::write(&intent.origin, b"arrived meanwhile").unwrap();
    // The first recovery kept the claim aside, then died before removing the claim.
    fs::hard_link(&intent.claim, inbox.join("a.recovered-x.md")).unwrap();
    recover(&tmp).unwrap();
    assert_eq!(names(&inbox), ["a.md", "a.recovered-x.md"]);
    assert_eq!(
        fs::read(inbox.join("a.recovered-x.md")).unwrap(),
        b"claimed"
    );
    assert!(names(&tmp).is_empty());
}

#[test]
fn a_version_kept_aside_stays_single_when_the_origin_name_frees_up() {
    let (_root, tmp, inbox, done) = setup();
    let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
    // The first recovery kept the claim aside (the origin name was taken), then died; the
    // file that took the name has left since.
    fs::hard_link(&intent.claim, inbox.join("a.recovered-x.md")).unwrap();
    recover(&tmp).unwrap();
    assert_eq!(names(&inbox), ["a.recovered-x.md"]);
    assert!(names(&tmp).is_empty());
}

#[test]
fn a_rollback_puts_the_claimed_file_itself_back_under_one_name() {
    let (_root, tmp, inbox, done) = setup();
    let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
    let inode = fs::metadata(&intent.claim).unwrap().ino();
    recover(&tmp).unwrap();
    let back = fs::metadata(inbox.join("a.md")).unwrap();
    assert_eq!((back.ino(), back.nlink()), (inode, 1));
    assert!(names(&tmp).is_empty());
}

#[test]
fn copies_link_one_unnamed_file_and_leave_tmp_untouched() {
    let (_root, tmp, inbox, done) = setup();
    let before = fs::symlink_metadata(&tmp).unwrap();
    let mut copies = Copies::new("a.md", b"hello");
    let first = copies.publish(&tmp, &inbox).unwrap();
    let second = copies.publish(&tmp, &done).unwrap();
    assert!(
        matches!(copies.staged, Some(Linkable::Unnamed(_))),
        "the test's file system makes unnamed files"
    );
    copies.sync().unwrap();
    assert!(same_file(&first, &second), "one file, two names");
    assert_eq!(fs::read(&second).unwrap(), b"hello");
    let mode = fs::symlink_metadata(&first).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let after = fs::symlink_metadata(&tmp).unwrap();
    assert_eq!(
        (before.ctime(), before.ctime_nsec()),
        (after.ctime(), after.ctime_nsec()),
        "a name was made in tmp/"
    );
    let taken = Copies::new("a.md", b"other").publish(&tmp, &inbox);
    assert!(
        matches!(taken, Err(Error::Io { source, .. }) if source.kind() == ErrorKind::AlreadyExists)
    );
    assert_eq!(fs::read(&first).unwrap(), b"hello");
}

#[test]
fn an_unnamed_file_whose_link_is_refused_is_published_with_a_name_instead() {
    let (_root, tmp, inbox, done) = setup();
    let mailbox = mailbox_of_tmp(&tmp);
    // Opened so that it can never be linked: refused as a policy would refuse it.
    let unlinkable = Place::new(mailbox, &tmp)
        .open(OFlags::WRONLY | OFlags::TMPFILE | OFlags::EXCL, 0o600)
        .unwrap();
    let mut staged = Linkable::Unnamed(unlinkable);
    let (first, second) = (inbox.join("a.md"), done.join("a.md"));
    let publish = |staged: &mut Linkable, dest: &Path| {
        staged
            .publish(&tmp, b"hello", dest, Place::new(mailbox, dest))
            .unwrap()
    };
    publish(&mut staged, &first).unwrap();
    assert!(matches!(staged, Linkable::Named { .. }));
    publish(&mut staged, &second).unwrap();
    assert!(
        same_file(&first, &second),
        "the next folder links the named file"
    );
    assert_eq!(fs::read(&first).unwrap(), b"hello");
    // A taken name is still refused as taken, without a second try.
    let taken = publish(&mut Linkable::stage(&tmp, b"other").unwrap(), &first);
    assert_eq!(taken.unwrap_err().kind(), ErrorKind::AlreadyExists);
    drop(staged);
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn a_staged_file_in_tmp_is_linked_and_its_name_goes_with_it() {
    // Where the file system makes no unnamed files.
    let (_root, tmp, inbox, _) = setup();
    let mailbox = mailbox_of_tmp(&tmp);
    let path = tmp.join(format!("op.{STAGED}"));
    let staged = Linkable::Named {
        mailbox: mailbox.to_owned(),
        staged: Staged::create(mailbox, path.clone(), b"hi").unwrap(),
    };
    let dest = inbox.join("a.md");
    staged.link(Place::new(mailbox, &dest)).unwrap();
    let again = staged.link(Place::new(mailbox, &dest)).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists);
    assert!(path.exists());
    drop(staged);
    assert!(!path.exists());
    assert_eq!(fs::read(&dest).unwrap(), b"hi");
}

#[test]
fn an_empty_tmp_is_read_again_only_once_its_entries_change() {
    let (_root, tmp, _, _) = setup();
    std::thread::sleep(std::time::Duration::from_millis(150)); // its ctime settles
    assert_eq!(recover(&tmp).unwrap(), Recovery::default());
    assert!(RECOVERED.still(&tmp, DirSeen::of(&tmp)));
    // A dead writer's leftover is named in tmp/: the next recovery reads it again.
    fs::write(tmp.join(format!("dead.{STAGED}")), b"x").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert!(!RECOVERED.still(&tmp, DirSeen::of(&tmp)));
    assert_eq!(recover(&tmp).unwrap().removed, 1);
}

#[test]
fn a_tmp_holding_a_live_writers_file_is_read_again_after_the_writer_dies() {
    let (_root, tmp, _, _) = setup();
    let live = tmp.join(format!("live.{STAGED}"));
    let locked = File::create(&live).unwrap();
    locked.lock().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert_eq!(recover(&tmp).unwrap(), Recovery::default());
    // The writer dies: its lock goes, tmp/'s entries stay as they were.
    drop(locked);
    assert_eq!(recover(&tmp).unwrap().removed, 1);
    assert!(!live.exists());
}

#[test]
fn recovery_leaves_live_writers_alone() {
    let (_root, tmp, _, _) = setup();
    // This process's writer, passed by through the registry.
    let live = Staged::create(mailbox_of_tmp(&tmp), tmp.join("live.part"), b"x").unwrap();
    assert!(is_held_here(&live.path));
    // Another process's writer, not in this registry: passed by because it is locked.
    let other = tmp.join(format!("other.{STAGED}"));
    let locked = File::create(&other).unwrap();
    locked.lock().unwrap();
    assert!(!is_held_here(&other));
    assert_eq!(recover(&tmp).unwrap(), Recovery::default());
    assert!(live.path.exists() && other.exists());
    drop(locked);
    assert_eq!(recover(&tmp).unwrap().removed, 1);
    assert!(live.path.exists() && !other.exists());
}

#[test]
fn recovery_in_the_staging_process_passes_its_files_by_until_they_are_given_back() {
    let (_root, tmp, _, _) = setup();
    let path = tmp.join(format!("op.{STAGED}"));
    // Registered as this process's before it exists (as `Staged::create` does), so even
    // unlocked (between its create and its lock) no recovery here removes it.
    let held = HeldHere::new(&path);
    fs::write(&path, b"x").unwrap();
    assert_eq!(recover(&tmp).unwrap(), Recovery::default());
    assert!(path.exists());
    drop(held);
    assert_eq!(recover(&tmp).unwrap().removed, 1);
    assert!(!path.exists());
}

#[test]
fn a_symlinked_lock_or_staged_file_is_never_opened_through() {
    let (root, tmp, _inbox, _done) = setup();
    let outside = root.path().join("outside");
    fs::write(&outside, b"keep").unwrap();
    let lock = root.path().join("state.lock");
    std::os::unix::fs::symlink(&outside, &lock).unwrap();
    assert!(with_lock(Place::new(root.path(), &lock), || Ok(())).is_err());
    std::os::unix::fs::symlink(&outside, tmp.join("op.1.new")).unwrap();
    recover(&tmp).unwrap();
    assert_eq!(fs::read(&outside).unwrap(), b"keep");
}

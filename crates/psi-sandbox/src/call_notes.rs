//! What a handler leaves for the layers around it ([`crate::per_request`]):
//! the operationId for the request log line, and an after-processing fault
//! whose answer replaces the handler's. One task-local scope per request
//! holds both: each scope is another future wrapped around the whole call,
//! moved and polled through on every wake-up.
//!
//! Outside the scope (a handler called directly, in unit tests) notes are
//! dropped and nothing is read back.

use crate::faults::Fault;
use std::cell::{Cell, RefCell};
use std::future::Future;

struct CallNotes {
    /// The operationId, once the handler named it; `-` until then.
    operation: Cell<&'static str>,
    /// The after-processing fault the handler met.
    replacement: RefCell<Option<Fault>>,
}

tokio::task_local! {
    static NOTES: CallNotes;
}

/// Runs `call` with a fresh set of notes.
pub async fn scoped<F: Future>(call: F) -> F::Output {
    let notes = CallNotes {
        operation: Cell::new("-"),
        replacement: RefCell::new(None),
    };
    NOTES.scope(notes, call).await
}

/// The current call is `operation`.
pub fn name_operation(operation: &'static str) {
    let _ = NOTES.try_with(|notes| notes.operation.set(operation));
}

/// The operationId the handler named, `-` when none did.
pub fn operation() -> &'static str {
    NOTES.try_with(|notes| notes.operation.get()).unwrap_or("-")
}

/// Leaves `fault` to replace the handler's answer.
pub fn replace_answer(fault: Fault) {
    let _ = NOTES.try_with(|notes| *notes.replacement.borrow_mut() = Some(fault));
}

/// The fault left to replace the handler's answer, if any.
pub fn take_replacement() -> Option<Fault> {
    NOTES
        .try_with(|notes| notes.replacement.borrow_mut().take())
        .ok()
        .flatten()
}

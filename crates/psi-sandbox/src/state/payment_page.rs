//! What the hosted payment page remembers: its sessions, the creations
//! made with an Idempotency-Key and the log of every notification sent
//! (session and invoice), each bounded by the sandbox's limits.

use super::store::{tables, Batch, Loader, Persisted};
use super::table::{Log, Table};
use crate::models::payment_page::idempotency::RememberedCall;
use crate::models::payment_page::session::{CannotEnd, Ending, Session};
use crate::models::payment_page::webhook_delivery::{Attempt, WebhookDelivery};
use crate::models::transaction::Transaction;
use chrono::{DateTime, Duration, FixedOffset, NaiveDate};
use psi_payment_page::types::SessionRecord;
use std::collections::{BTreeSet, VecDeque};

/// How many of the oldest sessions are searched for a finished one to
/// forget before the oldest is forgotten whatever its state.
const EVICTION_WINDOW: usize = 64;

/// What the hosted payment page remembers.
#[derive(Debug, Default)]
pub struct PaymentPageState {
    /// By session id.
    /// Boxed: a `Session` is about 1 KB, and the table moves every row
    /// when it grows; with the rows inline, growing a large table would copy
    /// every session under the data lock and stall every request meanwhile,
    /// and each empty slot of the grown table would hold a Session's worth
    /// of bytes.
    pub sessions: Table<String, Box<Session>>,
    /// Session and invoice notifications in the order they were queued.
    pub webhooks: Log<WebhookDelivery>,
    /// How many notifications were dropped from the log's front since the
    /// start: a delivery's number (its position when queued plus this at
    /// that time) finds it after a drop ([`PaymentPageState::queue_delivery`]).
    webhooks_dropped: usize,
    /// By (token subject, Idempotency-Key): a key belongs to one merchant.
    idempotency_keys: Table<(String, String), RememberedCall>,
    /// Session ids, oldest first: whom [`PaymentPageState::insert_session`]
    /// forgets beyond the cap. Not stored: rebuilt from the sessions' creation.
    order: VecDeque<String>,
    /// The remembered keys by when they were remembered, so that expired
    /// ones are pruned from the front without a scan of every key.
    key_expiry: BTreeSet<(DateTime<FixedOffset>, (String, String))>,
    /// The unfinished deliveries not being sent, by when their next attempt
    /// is due (sandbox time) and number: what the webhook scheduler takes
    /// from the front ([`PaymentPageState::take_due`]). Not stored: rebuilt
    /// from the log's unfinished deliveries.
    schedule: BTreeSet<(DateTime<FixedOffset>, usize)>,
}

impl Persisted for PaymentPageState {
    fn has_changes(&self) -> bool {
        self.sessions.has_changes()
            || self.webhooks.has_changes()
            || self.idempotency_keys.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::SESSIONS, &mut self.sessions)?;
        batch.log(tables::WEBHOOK_DELIVERIES, &mut self.webhooks)?;
        batch.table(tables::IDEMPOTENCY_KEYS, &mut self.idempotency_keys)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        let sessions: Table<String, Box<Session>> = loader.table(tables::SESSIONS)?;
        let idempotency_keys: Table<(String, String), RememberedCall> =
            loader.table(tables::IDEMPOTENCY_KEYS)?;
        let mut by_creation: Vec<(DateTime<FixedOffset>, &String)> = sessions
            .iter()
            .map(|(id, session)| (session.created, id))
            .collect();
        by_creation.sort();
        let order = by_creation.into_iter().map(|(_, id)| id.clone()).collect();
        let key_expiry = idempotency_keys
            .iter()
            .map(|(key, call)| (call.remembered_at, key.clone()))
            .collect();
        let webhooks: Log<WebhookDelivery> = loader.log(tables::WEBHOOK_DELIVERIES)?;
        // What a stopped sandbox left unfinished goes on with its next
        // attempt at the time kept; a delivery cut short before its first
        // attempt is due at once.
        let at_once = DateTime::<chrono::Utc>::UNIX_EPOCH.fixed_offset();
        let schedule = webhooks
            .iter()
            .enumerate()
            .filter_map(|(number, delivery)| Some((delivery.due(at_once)?, number)))
            .collect();
        Ok(Self {
            sessions,
            webhooks,
            idempotency_keys,
            order,
            key_expiry,
            webhooks_dropped: 0,
            schedule,
        })
    }
}

impl PaymentPageState {
    /// Stores `session`, first forgetting sessions while `max_sessions`
    /// are kept: the oldest finished (or due) one among the
    /// [`EVICTION_WINDOW`] oldest, else the oldest. A forgotten session
    /// answers 404 as an unknown one.
    pub fn insert_session(
        &mut self,
        session: Session,
        max_sessions: usize,
        now: DateTime<FixedOffset>,
    ) {
        while self.sessions.len() >= max_sessions.max(1) {
            if !self.forget_one(now) {
                break;
            }
        }
        self.order.push_back(session.id.clone());
        self.sessions.insert(session.id.clone(), Box::new(session));
    }

    fn forget_one(&mut self, now: DateTime<FixedOffset>) -> bool {
        let finished = self.order.iter().take(EVICTION_WINDOW).position(|id| {
            self.sessions
                .get(id)
                .is_some_and(|session| !session.is_open() || session.is_due(now))
        });
        match self.order.remove(finished.unwrap_or(0)) {
            Some(id) => {
                self.sessions.remove(&id);
                true
            }
            None => false,
        }
    }

    /// The call remembered under `key`, if any.
    pub fn remembered_call(&self, key: &(String, String)) -> Option<&RememberedCall> {
        self.idempotency_keys.get(key)
    }

    /// Forgets the keys remembered `lifetime` or more before `now`
    /// (sandbox time), oldest first, touching no other key.
    pub fn forget_expired_keys(&mut self, now: DateTime<FixedOffset>, lifetime: Duration) {
        let cutoff = now - lifetime;
        while self
            .key_expiry
            .first()
            .is_some_and(|(remembered_at, _)| *remembered_at <= cutoff)
        {
            if let Some((_, expired)) = self.key_expiry.pop_first() {
                self.idempotency_keys.remove(&expired);
            }
        }
    }

    /// Remembers `call` under `key`, first forgetting the oldest keys while
    /// `max` are kept (a key only replays a session, and no more sessions
    /// than that are kept).
    pub fn remember(&mut self, key: (String, String), call: RememberedCall, max: usize) {
        while self.idempotency_keys.len() >= max.max(1) {
            match self.key_expiry.pop_first() {
                Some((_, oldest)) => {
                    self.idempotency_keys.remove(&oldest);
                }
                None => break,
            }
        }
        self.key_expiry.insert((call.remembered_at, key.clone()));
        self.idempotency_keys.insert(key, call);
    }

    /// Expires the due sessions among those `among` selects. Only those
    /// are touched, so reading sessions writes nothing to a state file
    /// unless one of them expired.
    pub fn expire_due(&mut self, now: DateTime<FixedOffset>, among: impl Fn(&Session) -> bool) {
        let due: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, session)| among(session) && session.is_due(now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            if let Some(session) = self.sessions.get_mut(&id) {
                session.expire_if_due(now);
            }
        }
    }

    /// The record of `session_id` as it reads at `now` (an expired session
    /// as EXPIRED); `None` for an unknown id.
    pub fn record(
        &mut self,
        session_id: &str,
        now: DateTime<FixedOffset>,
    ) -> Option<SessionRecord> {
        if self.sessions.get(session_id)?.is_due(now) {
            self.sessions.get_mut(session_id)?.expire_if_due(now);
        }
        self.sessions
            .get(session_id)
            .map(|session| session.record())
    }

    /// The records of the sessions created on `day` in +01:00 (the offset
    /// of every sandbox time), oldest first.
    pub fn records_of_day(
        &mut self,
        day: NaiveDate,
        now: DateTime<FixedOffset>,
    ) -> Vec<SessionRecord> {
        let of_day = |session: &Session| session.created.date_naive() == day;
        self.expire_due(now, of_day);
        let mut sessions: Vec<&Session> = self
            .sessions
            .values()
            .map(|session| &**session)
            .filter(|s| of_day(s))
            .collect();
        sessions.sort_by_key(|session| session.created);
        sessions.into_iter().map(Session::record).collect()
    }

    /// The buyer opens the landing page of `session_id` ([`Session::visit`]).
    /// Answers the session as it is now, or `None` for an unknown id.
    pub fn visit(&mut self, session_id: &str, now: DateTime<FixedOffset>) -> Option<Session> {
        // Touched (and so written to a state file) only when it changes: a
        // page visit is mostly a read.
        if self.sessions.get(session_id)?.changes_on_visit(now) {
            self.sessions.get_mut(session_id)?.visit(now);
        }
        self.sessions
            .get(session_id)
            .map(|session| Session::clone(session))
    }

    /// Ends the open session `session_id` as `ending` says
    /// ([`Session::end`]): the session as it is then, and the transaction
    /// a completion creates.
    pub fn end_session(
        &mut self,
        session_id: &str,
        ending: Ending,
        now: DateTime<FixedOffset>,
    ) -> Result<(Session, Option<Transaction>), CannotEnd> {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return Err(CannotEnd::Unknown);
        };
        let transaction = session.end(ending, now)?;
        Ok((Session::clone(session), transaction))
    }

    /// Appends `delivery` to the log, due at `now`, and answers its number. A log holding
    /// `max` notifications first drops its oldest finished ones (delivered,
    /// given up or not sent), down to half of `max`; one still being sent
    /// is never dropped, nor anything after it.
    pub fn queue_delivery(
        &mut self,
        delivery: WebhookDelivery,
        max: usize,
        now: DateTime<FixedOffset>,
    ) -> usize {
        let log = &self.webhooks;
        if log.len() >= max.max(1) {
            let wanted = log.len() - max / 2;
            let finished = log
                .iter()
                .take(wanted)
                .take_while(|delivery| delivery.is_finished())
                .count();
            self.webhooks.drop_front(finished);
            self.webhooks_dropped += finished;
        }
        let due = delivery.due(now);
        let number = self.webhooks.push(delivery) + self.webhooks_dropped;
        if let Some(due) = due {
            self.schedule.insert((due, number));
        }
        number
    }

    /// The number the next queued delivery gets.
    pub fn next_delivery_number(&self) -> usize {
        self.webhooks.len() + self.webhooks_dropped
    }

    /// The log position of the delivery numbered `number`, if it is kept.
    fn position(&self, number: usize) -> Option<usize> {
        number
            .checked_sub(self.webhooks_dropped)
            .filter(|position| *position < self.webhooks.len())
    }

    /// The delivery numbered `number`, if it is kept.
    pub fn delivery(&self, number: usize) -> Option<&WebhookDelivery> {
        self.position(number)
            .map(|position| &self.webhooks[position])
    }

    /// Adds `attempt` to the delivery numbered `number`, delivered when a
    /// receiver answered 2xx, and schedules its next attempt unless it is
    /// finished. A delivery being sent is never dropped, so it is found.
    pub fn record_attempt(&mut self, number: usize, attempt: Attempt, delivered: bool) {
        if let Some(position) = self.position(number) {
            let delivery = &mut self.webhooks[position];
            delivery.record(attempt, delivered);
            if let Some(due) = delivery.next_attempt_at {
                self.schedule.insert((due, number));
            }
        }
    }

    /// The deliveries kept with their numbers, oldest first.
    pub fn numbered_deliveries(&self) -> impl Iterator<Item = (usize, &WebhookDelivery)> {
        let dropped = self.webhooks_dropped;
        self.webhooks
            .iter()
            .enumerate()
            .map(move |(position, delivery)| (position + dropped, delivery))
    }

    /// Takes the numbers of the deliveries due at `now` off the schedule,
    /// earliest first: the caller sends their next attempt and records it
    /// ([`PaymentPageState::record_attempt`]), which schedules the one after.
    pub fn take_due(&mut self, now: DateTime<FixedOffset>) -> Vec<usize> {
        let mut due = Vec::new();
        while self.schedule.first().is_some_and(|(at, _)| *at <= now) {
            if let Some((_, number)) = self.schedule.pop_first() {
                due.push(number);
            }
        }
        due
    }

    /// When the earliest scheduled attempt is due, if any is.
    pub fn next_due(&self) -> Option<DateTime<FixedOffset>> {
        self.schedule.first().map(|(at, _)| *at)
    }
}

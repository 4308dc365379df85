//! The two collection shapes of the sandbox's state, each remembering which
//! of its rows changed since they were last saved to the state file.
//!
//! - [`Table`]: rows by key (sessions, transactions, bookings, ...).
//! - [`Log`]: rows in the order they were appended (webhook deliveries,
//!   webhook subscriptions).
//!
//! Reading (`get`, `values`, `iter`, indexing) marks nothing. Every call that
//! can change a row (`get_mut`, `insert`, `remove`, `retain`, `values_mut`,
//! `push`, `IndexMut`, `clear`) marks it, even when the caller then leaves the
//! row as it was: a row saved once too often costs a write, a row forgotten
//! would be lost. Without a state file ([`Table::default`]) there is no
//! tracking at all, so the in-memory sandbox pays nothing for it.

use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::Hash;

/// Above this many remembered keys, the set is shrunk after a save, so one
/// large batch (seeding 100,000 transactions) does not keep its memory.
const KEEP_CAPACITY: usize = 1024;

/// Rows by key.
pub struct Table<K, V> {
    rows: HashMap<K, V>,
    /// Keys inserted, changed or removed since the last save; `None` when
    /// nothing is saved (no state file).
    changed: Option<HashSet<K>>,
}

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Self {
            rows: HashMap::new(),
            changed: None,
        }
    }
}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for Table<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.rows.iter()).finish()
    }
}

impl<K: Hash + Eq + Clone, V> Table<K, V> {
    /// Rows loaded from the state file; changes from now on are tracked.
    pub fn tracked(rows: HashMap<K, V>) -> Self {
        Self {
            rows,
            changed: Some(HashSet::new()),
        }
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.rows.get(key)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.rows.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.rows.values()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.rows.iter()
    }

    /// The row, marked changed.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if let Some(changed) = &mut self.changed {
            let (key, _) = self.rows.get_key_value(key)?;
            changed.insert(key.clone());
        }
        self.rows.get_mut(key)
    }

    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        if let Some(changed) = &mut self.changed {
            changed.insert(key.clone());
        }
        self.rows.insert(key, value)
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (key, value) = self.rows.remove_entry(key)?;
        if let Some(changed) = &mut self.changed {
            changed.insert(key);
        }
        Some(value)
    }

    /// Keeps the rows `keep` accepts; the others are removed (and marked).
    #[cfg(test)]
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let changed = &mut self.changed;
        self.rows.retain(|key, value| {
            let kept = keep(key, value);
            if let (false, Some(changed)) = (kept, changed.as_mut()) {
                changed.insert(key.clone());
            }
            kept
        });
    }

    /// Every row, each marked changed.
    #[cfg(test)]
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        if let Some(changed) = &mut self.changed {
            changed.extend(self.rows.keys().cloned());
        }
        self.rows.values_mut()
    }

    /// Whether anything changed since the last save.
    pub fn has_changes(&self) -> bool {
        self.changed.as_ref().is_some_and(|keys| !keys.is_empty())
    }

    /// The changes since the last save, as rows to write (`Some`) or to
    /// delete (`None`); forgets them (the caller saves them).
    pub fn take_changes(&mut self) -> Vec<(K, Option<&V>)> {
        let Some(changed) = &mut self.changed else {
            return Vec::new();
        };
        let keys: Vec<K> = changed.drain().collect();
        if changed.capacity() > KEEP_CAPACITY {
            changed.shrink_to(KEEP_CAPACITY);
        }
        let rows = &self.rows;
        keys.into_iter()
            .map(|key| {
                let value = rows.get(&key);
                (key, value)
            })
            .collect()
    }
}

/// Rows in the order they were appended, addressed by position.
pub struct Log<V> {
    rows: Vec<V>,
    /// Positions appended or changed since the last save; `None` when
    /// nothing is saved.
    changed: Option<BTreeSet<usize>>,
    /// `clear` was called since the last save: every saved row goes first.
    cleared: bool,
}

impl<V> Default for Log<V> {
    fn default() -> Self {
        Self {
            rows: Vec::new(),
            changed: None,
            cleared: false,
        }
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for Log<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.rows.iter()).finish()
    }
}

/// What a [`Log`] must save: whether to delete every saved row first, then
/// the rows to write by position.
pub struct LogChanges<'a, V> {
    pub cleared: bool,
    pub rows: Vec<(usize, &'a V)>,
}

impl<V> Log<V> {
    /// Rows loaded from the state file; changes from now on are tracked.
    pub fn tracked(rows: Vec<V>) -> Self {
        Self {
            rows,
            changed: Some(BTreeSet::new()),
            cleared: false,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &V> {
        self.rows.iter()
    }

    /// Appends `value` and answers its position.
    pub fn push(&mut self, value: V) -> usize {
        self.rows.push(value);
        let position = self.rows.len() - 1;
        if let Some(changed) = &mut self.changed {
            changed.insert(position);
        }
        position
    }

    /// Replaces the row at `position` (which must exist); it is written
    /// again on the next save.
    pub fn replace(&mut self, position: usize, value: V) {
        self.rows[position] = value;
        if let Some(changed) = &mut self.changed {
            changed.insert(position);
        }
    }

    /// Removes the first `count` rows; the others move to positions 0, 1,
    /// ... and are all written again on the next save.
    pub fn drop_front(&mut self, count: usize) {
        let count = count.min(self.rows.len());
        if count == 0 {
            return;
        }
        self.rows.drain(..count);
        if let Some(changed) = &mut self.changed {
            *changed = (0..self.rows.len()).collect();
            self.cleared = true;
        }
    }

    /// Removes every row.
    pub fn clear(&mut self) {
        self.rows.clear();
        if let Some(changed) = &mut self.changed {
            changed.clear();
            self.cleared = true;
        }
    }

    pub fn has_changes(&self) -> bool {
        self.cleared || self.changed.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// The changes since the last save; forgets them (the caller saves them).
    pub fn take_changes(&mut self) -> LogChanges<'_, V> {
        let cleared = std::mem::take(&mut self.cleared);
        let positions = self.changed.as_mut().map(std::mem::take);
        let rows = positions
            .unwrap_or_default()
            .into_iter()
            .filter_map(|position| self.rows.get(position).map(|row| (position, row)))
            .collect();
        LogChanges { cleared, rows }
    }
}

impl<V> std::ops::Index<usize> for Log<V> {
    type Output = V;
    fn index(&self, position: usize) -> &V {
        &self.rows[position]
    }
}

/// The row, marked changed.
impl<V> std::ops::IndexMut<usize> for Log<V> {
    fn index_mut(&mut self, position: usize) -> &mut V {
        if let Some(changed) = &mut self.changed {
            changed.insert(position);
        }
        &mut self.rows[position]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(table: &mut Table<String, u32>) -> Vec<(String, Option<u32>)> {
        let mut changes: Vec<_> = table
            .take_changes()
            .into_iter()
            .map(|(key, value)| (key, value.copied()))
            .collect();
        changes.sort();
        changes
    }

    #[test]
    fn dropping_a_logs_front_rewrites_the_rest_from_position_0() {
        let mut log = Log::tracked(vec!['a', 'b', 'c']);
        log.push('d');
        let _ = log.take_changes();
        log.drop_front(2);
        assert_eq!(log.iter().cloned().collect::<Vec<_>>(), ['c', 'd']);
        let changes = log.take_changes();
        assert!(changes.cleared);
        assert_eq!(changes.rows, [(0, &'c'), (1, &'d')]);
        log.drop_front(5);
        assert!(log.is_empty());
    }

    #[test]
    fn an_untracked_table_remembers_nothing() {
        let mut table = Table::<String, u32>::default();
        table.insert("a".to_owned(), 1);
        *table.get_mut("a").expect("a row") += 1;
        table.values_mut().for_each(|value| *value += 1);
        assert!(!table.has_changes());
        assert!(table.take_changes().is_empty());
        assert_eq!(table.get("a"), Some(&3));
    }

    #[test]
    fn reads_mark_nothing_and_every_change_is_marked() {
        let mut table = Table::tracked(HashMap::from([
            ("a".to_owned(), 1),
            ("b".to_owned(), 2),
            ("c".to_owned(), 3),
        ]));
        assert_eq!(table.get("a"), Some(&1));
        assert!(table.contains_key("b"));
        assert_eq!(table.values().sum::<u32>(), 6);
        assert_eq!(table.iter().count(), 3);
        assert!(!table.has_changes(), "reads are not changes");

        *table.get_mut("a").expect("a row") = 10;
        assert!(table.get_mut("missing").is_none());
        table.insert("d".to_owned(), 4);
        table.remove("b");
        assert!(table.remove("missing").is_none());
        assert!(table.has_changes());
        assert_eq!(
            changes(&mut table),
            [
                ("a".to_owned(), Some(10)),
                ("b".to_owned(), None),
                ("d".to_owned(), Some(4)),
            ]
        );
        assert!(!table.has_changes(), "taken changes are forgotten");

        table.retain(|_, value| *value != 3);
        assert_eq!(changes(&mut table), [("c".to_owned(), None)]);

        table.values_mut().for_each(|_| {});
        assert_eq!(
            changes(&mut table),
            [("a".to_owned(), Some(10)), ("d".to_owned(), Some(4))]
        );
    }

    #[test]
    fn a_removed_then_reinserted_row_is_written_not_deleted() {
        let mut table = Table::tracked(HashMap::from([("a".to_owned(), 1)]));
        table.remove("a");
        table.insert("a".to_owned(), 2);
        assert_eq!(changes(&mut table), [("a".to_owned(), Some(2))]);
    }

    #[test]
    fn a_log_marks_appends_changes_and_clears() {
        let mut log = Log::tracked(vec!["x".to_owned()]);
        assert_eq!(&log[0], "x");
        assert_eq!(log.iter().cloned().collect::<Vec<_>>(), ["x"]);
        assert!(!log.has_changes());
        assert_eq!(log.push("y".to_owned()), 1);
        log[0].push('!');
        let changes = log.take_changes();
        assert!(!changes.cleared);
        let rows: Vec<_> = changes
            .rows
            .into_iter()
            .map(|(at, row)| (at, row.clone()))
            .collect();
        assert_eq!(rows, [(0, "x!".to_owned()), (1, "y".to_owned())]);
        assert!(!log.has_changes());

        log.push("z".to_owned());
        log.clear();
        log.push("after".to_owned());
        let changes = log.take_changes();
        assert!(changes.cleared, "a clear deletes the saved rows first");
        assert_eq!(changes.rows.len(), 1);
        assert_eq!(changes.rows[0], (0, &"after".to_owned()));

        let mut untracked = Log::default();
        untracked.push(1);
        untracked.clear();
        assert!(!untracked.has_changes());
    }
}

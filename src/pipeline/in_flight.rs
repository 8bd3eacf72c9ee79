//! The one mechanism by which every input goes through the pool in order: units (chunks of
//! text, blocks of a stream, batches of a capture's records) handed to the workers as soon
//! as they are cut, a few per core in flight, their results put back in input order for
//! the calling thread to write; and the buffers of results written already, kept for the
//! units to come.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Mutex, PoisonError};

/// What a unit's work on the pool sends back: the number the unit was handed out with, and
/// the work's result or its panic.
type Done<R> = (usize, std::thread::Result<R>);

/// The units handed out and not yet written, in input order, each with its result once it
/// is there.
pub(super) struct InFlight<U, R> {
    queue: VecDeque<(U, Option<R>)>,
    /// The number the front unit was handed out with (units are numbered as handed out).
    first: usize,
    handed_out: usize,
    sender: mpsc::Sender<Done<R>>,
    done: mpsc::Receiver<Done<R>>,
}

impl<U, R: Send> InFlight<U, R> {
    /// Room for `window` units.
    pub(super) fn new(window: usize) -> Self {
        let (sender, done) = mpsc::channel();
        InFlight {
            queue: VecDeque::with_capacity(window),
            first: 0,
            handed_out: 0,
            sender,
            done,
        }
    }

    /// Units in flight.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no unit is in flight.
    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Takes `unit` in, after the others; with a scope and `work`, the work runs on the pool
    /// (its panic goes on in [`InFlight::wait`]); without, the unit waits for the calling
    /// thread to work it out ([`InFlight::front_mut`]).
    pub(super) fn push<'s, W>(&mut self, scope: Option<&rayon::Scope<'s>>, unit: U, work: Option<W>)
    where
        W: FnOnce() -> R + Send + 's,
        R: 's,
    {
        if let (Some(scope), Some(work)) = (scope, work) {
            let (sender, index) = (self.sender.clone(), self.handed_out);
            scope.spawn(move |_| {
                let result = panic::catch_unwind(AssertUnwindSafe(work));
                // The receiver is gone only once writing has failed.
                let _ = sender.send((index, result));
            });
        }
        self.handed_out += 1;
        self.queue.push_back((unit, None));
    }

    /// The unit written next and its result, if there.
    pub(super) fn front(&self) -> Option<&(U, Option<R>)> {
        self.queue.front()
    }

    /// [`InFlight::front`], to change.
    pub(super) fn front_mut(&mut self) -> Option<&mut (U, Option<R>)> {
        self.queue.front_mut()
    }

    /// The units in flight, in order.
    pub(super) fn units(&self) -> impl Iterator<Item = &U> {
        self.queue.iter().map(|(unit, _)| unit)
    }

    /// Waits for the next result of the pool and puts it with its unit; the result of a
    /// unit dropped by [`InFlight::clear`] goes to `give_back`.
    pub(super) fn wait(&mut self, give_back: impl FnOnce(R)) {
        let (index, result) = self.done.recv().expect("this holds a sender");
        let result = result.unwrap_or_else(|p| panic::resume_unwind(p));
        match index.checked_sub(self.first) {
            Some(at) => self.queue[at].1 = Some(result),
            None => give_back(result),
        }
    }

    /// Takes the front unit and its result out, to be written.
    pub(super) fn pop(&mut self) -> Option<(U, Option<R>)> {
        let front = self.queue.pop_front()?;
        self.first += 1;
        Some(front)
    }

    /// Drops every unit in flight (their input is cut again): the results there go to
    /// `give_back`, those still on the pool will when they come.
    pub(super) fn clear(&mut self, give_back: impl FnMut(R)) {
        self.first = self.handed_out;
        self.queue
            .drain(..)
            .filter_map(|(_, r)| r)
            .for_each(give_back);
    }
}

/// Buffers of results written already (or blocks of input), kept to be filled again: fresh
/// memory for each unit would cost the kernel a cleared page for every 4 KiB, and the
/// memory of a run settles at what its units in flight need.
#[derive(Debug)]
pub(super) struct Spare<T> {
    kept: Mutex<Vec<T>>,
    /// Most buffers kept.
    most: usize,
}

impl<T> Spare<T> {
    /// Keeps up to `most` buffers.
    pub(super) fn new(most: usize) -> Self {
        Spare {
            kept: Mutex::new(Vec::new()),
            most,
        }
    }

    /// A buffer kept, if any.
    pub(super) fn take(&self) -> Option<T> {
        self.lock().pop()
    }

    /// Keeps `buffer`, unless enough are.
    pub(super) fn give(&self, buffer: T) {
        let mut kept = self.lock();
        if kept.len() < self.most {
            kept.push(buffer);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<T>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_whatever_order_the_pool_ends_them_in() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Mutex::new(wait);
        let mut written = Vec::new();
        pool.in_place_scope(|s| {
            let mut in_flight = InFlight::new(4);
            // The first unit's work waits for a word sent once the others are back.
            let wait = &wait;
            in_flight.push(
                Some(s),
                0,
                Some(move || {
                    wait.lock().unwrap().recv().unwrap();
                    0
                }),
            );
            for unit in 1..4 {
                in_flight.push(Some(s), unit, Some(move || unit * 10));
            }
            // Three results come back while the first is held.
            for _ in 0..3 {
                in_flight.wait(|_| unreachable!());
            }
            assert!(in_flight.front().unwrap().1.is_none());
            release.send(()).unwrap();
            while let Some((unit, result)) = in_flight.front() {
                match result {
                    Some(r) => {
                        written.push((*unit, *r));
                        in_flight.pop();
                    }
                    None => in_flight.wait(|_| unreachable!()),
                }
            }
        });
        assert_eq!(written, [(0, 0), (1, 10), (2, 20), (3, 30)]);
    }

    #[test]
    fn results_of_units_cleared_are_given_back() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut given_back = Vec::new();
        pool.in_place_scope(|s| {
            let mut in_flight = InFlight::new(2);
            in_flight.push(Some(s), 'a', Some(|| 1));
            in_flight.push(Some(s), 'b', Some(|| 2));
            in_flight.clear(|r| given_back.push(r));
            in_flight.push(None, 'c', None::<fn() -> i32>);
            // Both results come after the clear: neither is put with 'c'.
            in_flight.wait(|r| given_back.push(r));
            in_flight.wait(|r| given_back.push(r));
            assert_eq!(in_flight.units().collect::<Vec<_>>(), [&'c']);
            assert!(in_flight.front().unwrap().1.is_none());
        });
        given_back.sort();
        assert_eq!(given_back, [1, 2]);
    }

    #[test]
    fn a_spare_keeps_at_most_its_number_of_buffers() {
        let spare = Spare::new(2);
        for n in 0..5 {
            spare.give(vec![n]);
        }
        assert_eq!(spare.take(), Some(vec![1]));
        assert_eq!(spare.take(), Some(vec![0]));
        assert_eq!(spare.take(), None);
    }
}

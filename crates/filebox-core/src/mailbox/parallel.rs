//! Work over a slice on a few threads, results in the slice's order: for listings, whose time
//! is a system call or two per file, not CPU.

/// Slices shorter than this are worked by the calling thread alone.
const PARALLEL_MIN: usize = 256;

/// `work` over consecutive chunks of `items`, on up to four threads, the results joined in
/// order; a worker's panic is raised again here.
pub(crate) fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || items.len() < PARALLEL_MIN {
        return work(items);
    }
    let chunk = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items_however_many_threads_work() {
        for len in [0, 1, 255, 256, 1_000] {
            let items: Vec<usize> = (0..len).collect();
            let doubled = super::map_chunks(&items, |part| part.iter().map(|i| i * 2).collect());
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}

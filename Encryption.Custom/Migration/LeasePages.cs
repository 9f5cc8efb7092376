namespace Encryption.Custom.Migration;

/// <summary>
/// The change feed pages this instance is working on, per lease, so that a page whose lease another instance has
/// taken is given up at once instead of finished. The change feed processor of the instance that lost a lease only
/// learns it at the page's checkpoint (or at its next renewal, 17 s by default): until then it went on rewriting the
/// page while the new owner read the same documents from the last checkpoint, both racing for them (a 412 for every
/// document both touched), and the old owner's own leases waited for the slots it spent there (measured: the
/// instance that had started alone kept 1,100 documents more than the others and finished alone, issue 36).
/// </summary>
/// <remarks>
/// Who owns a lease comes from the estimator's reading of the lease container, which the progress loop takes anyway
/// (<see cref="BeginLook"/> before it, <see cref="AbandonTaken"/> after). Only pages that started before that reading
/// began are given up: a page started later may belong to this instance's new ownership of the lease, which the
/// reading could not see yet. A lease the reading shows owned by another instance cannot be checkpointed by this one
/// any more, so giving up its page loses nothing: the new owner reads it again from the last checkpoint. Documents
/// whose replace was already sent finish (a replace is never abandoned, <see cref="DocumentMigrator"/>); the rest of
/// the page is cancelled, and the handler's exception ends the processor's work on that lease.
/// </remarks>
internal sealed class LeasePages
{
    private readonly Lock _lock = new();
    private readonly List<Page> _pages = [];
    private long _look;

    /// <summary>Starts tracking a page of <paramref name="leaseToken"/>; its token is cancelled with <paramref name="cancellationToken"/> or when the lease is taken.</summary>
    public Page Begin(string leaseToken, CancellationToken cancellationToken)
    {
        lock (_lock)
        {
            var page = new Page(this, leaseToken, _look, cancellationToken);
            _pages.Add(page);
            return page;
        }
    }

    /// <summary>A reading of the leases' owners begins: pages started from now on are not judged by it.</summary>
    /// <returns>The reading's number, for <see cref="AbandonTaken"/>.</returns>
    public long BeginLook()
    {
        lock (_lock)
        {
            return ++_look;
        }
    }

    /// <summary>
    /// Cancels the pages that started before reading <paramref name="look"/> on a lease that reading found owned by
    /// another instance (<paramref name="takenLeases"/>: lease tokens).
    /// </summary>
    /// <returns>How many pages were given up.</returns>
    public int AbandonTaken(long look, IReadOnlySet<string> takenLeases)
    {
        ArgumentNullException.ThrowIfNull(takenLeases);
        List<Page> abandoned;
        lock (_lock)
        {
            abandoned = [.. _pages.Where(page => page.FirstLookAfter <= look && takenLeases.Contains(page.LeaseToken))];
        }

        foreach (Page page in abandoned)
        {
            page.Abandon();
        }

        return abandoned.Count;
    }

    private void End(Page page)
    {
        lock (_lock)
        {
            _pages.Remove(page);
        }
    }

    /// <summary>One page at work; dispose it when the handler returns.</summary>
    internal sealed class Page : IDisposable
    {
        private readonly LeasePages _owner;
        private readonly CancellationTokenSource _cancellation;

        public Page(LeasePages owner, string leaseToken, long look, CancellationToken cancellationToken)
        {
            _owner = owner;
            LeaseToken = leaseToken;
            FirstLookAfter = look + 1;
            _cancellation = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        }

        /// <summary>The lease the page was read from.</summary>
        public string LeaseToken { get; }

        /// <summary>The first reading of the owners that began after the page did: the first that may judge it.</summary>
        public long FirstLookAfter { get; }

        /// <summary>Cancelled when the run stops or the lease was taken by another instance.</summary>
        public CancellationToken Token => _cancellation.Token;

        /// <summary>Whether the page was given up because another instance took its lease.</summary>
        public bool Abandoned { get; private set; }

        public void Dispose()
        {
            _owner.End(this);
            _cancellation.Dispose();
        }

        internal void Abandon()
        {
            try
            {
                Abandoned = true;
                _cancellation.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // The page ended meanwhile: nothing left to give up.
            }
        }
    }
}

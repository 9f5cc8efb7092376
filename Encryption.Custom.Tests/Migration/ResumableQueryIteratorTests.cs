using System.Globalization;
using System.Net;
using Encryption.Custom.Migration;
using FsCheck;
using FsCheck.Fluent;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tests.Migration;

/// <summary>
/// <see cref="ResumableQueryIterator"/>: whatever pages fail transiently, the caller receives every page exactly once,
/// in order, even from an iterator that (like the SDK's cross-partition one) moves on past a page it failed to return.
/// </summary>
public sealed class ResumableQueryIteratorTests
{
    [Fact]
    public void EveryPageOnce_InOrder_WhateverPagesFailTransiently()
    {
        Gen<(int Pages, bool[] Failures)> cases =
            from pages in Gen.Choose(1, 12)
            from failures in Gen.Elements(false, false, true).ArrayOf(40)
            select (pages, failures);

        Prop.ForAll(Arb.From(cases), input =>
        {
            var failures = new Queue<bool>(input.Failures);
            int iterators = 0;
            using var pages = new ResumableQueryIterator(continuation =>
            {
                iterators++;
                return new SkippingIterator(input.Pages, continuation, failures);
            });

            List<int> received = Drain(pages);

            Assert.Equal(Enumerable.Range(0, input.Pages), received);
            Assert.Equal(1 + input.Failures.Take(input.Failures.Length - failures.Count).Count(f => f), iterators);
        }).QuickCheckThrowOnFailure();
    }

    [Fact]
    public async Task TheFakeLosesPages_WhenRetriedInPlace()
    {
        // Without resuming from the continuation, a failure loses the page the fake moved past: what the status
        // scan did (34 of 60 documents over three ranges), so the property above is about something real.
        var failures = new Queue<bool>([false, true]);
        using var iterator = new SkippingIterator(4, null, failures);
        var received = new List<int>();
        while (iterator.HasMoreResults)
        {
            using ResponseMessage response = await iterator.ReadNextAsync(TestContext.Current.CancellationToken);
            if (response.IsSuccessStatusCode)
            {
                received.Add(int.Parse(response.Headers["x-page"], CultureInfo.InvariantCulture));
            }
        }

        Assert.Equal([0, 2, 3], received);
    }

    [Fact]
    public async Task APermanentFailure_IsHandedBack_AndNotRetried()
    {
        int iterators = 0;
        using var pages = new ResumableQueryIterator(_ =>
        {
            iterators++;
            return new FailingIterator(HttpStatusCode.BadRequest);
        });

        using ResponseMessage response = await pages.ReadNextAsync(TestContext.Current.CancellationToken);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal(1, iterators);
    }

    private static List<int> Drain(ResumableQueryIterator pages)
    {
        var received = new List<int>();
        while (pages.HasMoreResults)
        {
            using ResponseMessage response = pages.ReadNextAsync(CancellationToken.None).GetAwaiter().GetResult();
            if (response.IsSuccessStatusCode)
            {
                received.Add(int.Parse(response.Headers["x-page"], CultureInfo.InvariantCulture));
            }
            else
            {
                Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            }
        }

        return received;
    }

    // Pages 0..count-1 (the page number in a header; the continuation is the next page's number). A page that
    // fails (the next entry of the shared queue is true) answers 503 and still moves the iterator past it.
    private sealed class SkippingIterator(int count, string? continuation, Queue<bool> failures) : FeedIterator
    {
        private int _next = continuation is null ? 0 : int.Parse(continuation, CultureInfo.InvariantCulture);

        public override bool HasMoreResults => _next < count;

        public override Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken = default)
        {
            int page = _next++;
            if (failures.TryDequeue(out bool fail) && fail)
            {
                return Task.FromResult(new ResponseMessage(HttpStatusCode.ServiceUnavailable));
            }

            var response = new ResponseMessage(HttpStatusCode.OK);
            response.Headers["x-page"] = page.ToString(CultureInfo.InvariantCulture);
            if (_next < count)
            {
                response.Headers["x-ms-continuation"] = _next.ToString(CultureInfo.InvariantCulture);
            }

            return Task.FromResult(response);
        }
    }

    private sealed class FailingIterator(HttpStatusCode status) : FeedIterator
    {
        public override bool HasMoreResults => true;

        public override Task<ResponseMessage> ReadNextAsync(CancellationToken cancellationToken = default) =>
            Task.FromResult(new ResponseMessage(status));
    }
}

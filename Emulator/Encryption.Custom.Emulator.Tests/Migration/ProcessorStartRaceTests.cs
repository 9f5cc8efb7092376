using System.Net;
using Encryption.Custom.Emulator.Tests.Encryption;
using Newtonsoft.Json.Linq;
using static Encryption.Custom.Emulator.Tests.Migration.MigrationScenario;

namespace Encryption.Custom.Emulator.Tests.Migration;

/// <summary>
/// The change feed processor's start checks whether its lease store is initialized, takes a lock, and writes the
/// store's marker without checking again: an instance started beside another can find the marker written in between
/// and meet 409 Conflict (three instances started together did, in a full run of SharedSurveyTests). The job starts
/// again and finds the store initialized.
/// </summary>
public sealed class ProcessorStartRaceTests(EncryptionFixture fixture) : IClassFixture<EncryptionFixture>
{
    private static CancellationToken Ct => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Migration_WhenAnotherInstanceInitializesTheLeaseStoreBetweenCheckAndLock_StartsAgainAndCompletes()
    {
        const int Count = 30;
        var policy = new ContainerEncryptionPolicy(EncryptionFixture.Dek1, Paths);
        (Container created, _) = await fixture.CreateContainerAsync(cancellationToken: Ct);
        (Container createdLeases, _) = await fixture.CreateContainerAsync("/id", cancellationToken: Ct);
        await SeedAsync(created, Count, Ct);

        // The other instance: right after this one's first look at the marker (not there yet), it writes the marker.
        using var race = new MarkerWrittenAfterFirstLook(createdLeases);
        using var client = fixture.Endpoint.CreateClientThrough(race);
        Container raw = client.GetContainer(fixture.Database.Id, created.Id);
        Container leases = client.GetContainer(fixture.Database.Id, createdLeases.Id);

        await using var job = new EncryptionMigrationJob(raw, fixture.Encryptor, policy, leases, Options());
        EncryptionMigrationResult result = await RunAsync(job, Ct);

        Assert.True(race.MarkerWritten, "The marker was never looked at: the race was not staged.");
        Assert.True(race.ConflictsAnswered >= 1, "The processor's start never met the marker written in between.");
        Assert.True(result.Completed);
        Assert.Empty(result.Failures);
        Dictionary<string, JObject> stored = await ReadStoredAsync(created, Ct);
        Assert.All(stored.Values, d => Assert.Equal(EncryptionFixture.Dek1, KeyId(d)));
    }

    // Lets every request through; after the first read of the lease store's marker (an id ending ".info") that finds
    // nothing, writes that marker through its own container, as an instance started at the same moment would.
    private sealed class MarkerWrittenAfterFirstLook(Container leases) : DelegatingHandler(new HttpClientHandler
    {
        // The bundled endpoint's certificate is self-signed; only loopback is ever reached through this handler.
        ServerCertificateCustomValidationCallback = static (request, _, _, _) => request.RequestUri!.IsLoopback,
    })
    {
        private int _looked;
        private int _conflicts;

        public bool MarkerWritten { get; private set; }

        public int ConflictsAnswered => Volatile.Read(ref _conflicts);

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            HttpResponseMessage response = await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            string path = request.RequestUri!.AbsolutePath;
            bool inLeases = path.Contains($"/colls/{leases.Id}/", StringComparison.Ordinal);
            if (inLeases && request.Method == HttpMethod.Get && path.EndsWith(".info", StringComparison.Ordinal)
                && response.StatusCode == HttpStatusCode.NotFound && Interlocked.Exchange(ref _looked, 1) == 0)
            {
                string id = Uri.UnescapeDataString(path[(path.LastIndexOf('/') + 1)..]);
                await leases.CreateItemAsync(new { id }, new PartitionKey(id), cancellationToken: cancellationToken).ConfigureAwait(false);
                MarkerWritten = true;
            }

            if (inLeases && request.Method == HttpMethod.Post && response.StatusCode == HttpStatusCode.Conflict)
            {
                Interlocked.Increment(ref _conflicts);
            }

            return response;
        }
    }
}

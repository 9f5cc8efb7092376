using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Lookups;

/// <summary>
/// The stored form of where a change feed starts: a start from a feed range made from a partition key
/// (<c>ChangeFeedStartFrom.Beginning(FeedRange.FromPartitionKey(key))</c>) is rebuilt on the stored key. The SDK keeps
/// a start's range on internal types (<c>ChangeFeedStartFromBeginning</c> and the like) that expose it as a public
/// <c>FeedRange</c> property, read here by reflection; a start that names a key-made range in a way this code does not
/// know is refused rather than sent with the plaintext key.
/// </summary>
internal static class ChangeFeedStarts
{
    /// <summary>The start, on the stored key when it is made from a partition key the policy encrypts.</summary>
    /// <exception cref="EncryptionException"><see cref="EncryptionErrorKind.InvalidOptions"/>: a key-made range in a start this code cannot rebuild.</exception>
    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification = "The SDK reads these properties itself; were one trimmed away, a start with a range is refused, never sent unchanged.")]
    public static ChangeFeedStartFrom Encrypt(ChangeFeedStartFrom start, LookupKeys lookups)
    {
        ArgumentNullException.ThrowIfNull(start);
        if (!lookups.IsActive || start.GetType().Name == "ChangeFeedStartFromContinuation")
        {
            // A continuation carries the service's ranges (effective partition keys), never a key.
            return start;
        }

        if (start.GetType().GetProperty("FeedRange", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)?.GetValue(start) is not FeedRange range)
        {
            throw Unknown(start);
        }

        FeedRange stored = lookups.Encrypt(range);
        if (ReferenceEquals(stored, range))
        {
            return start;
        }

        return start.GetType().Name switch
        {
            "ChangeFeedStartFromBeginning" => ChangeFeedStartFrom.Beginning(stored),
            "ChangeFeedStartFromNow" => ChangeFeedStartFrom.Now(stored),
            "ChangeFeedStartFromTime" when start.GetType().GetProperty("StartTime", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)?.GetValue(start) is DateTime time =>
                ChangeFeedStartFrom.Time(time, stored),
            _ => throw Unknown(start),
        };
    }

    private static EncryptionException Unknown(ChangeFeedStartFrom start) =>
        new(
            EncryptionErrorKind.InvalidOptions,
            $"The change feed start '{start.GetType().Name}' is not one this version can read its range from, and the container's policy may encrypt the partition key: start from the beginning, now, a point in time or a continuation.");
}

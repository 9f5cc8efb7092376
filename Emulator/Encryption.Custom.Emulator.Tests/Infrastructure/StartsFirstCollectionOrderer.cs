using System.Reflection;
using Xunit.Sdk;
using Xunit.v3;

namespace Encryption.Custom.Emulator.Tests.Infrastructure;

/// <summary>
/// Orders the test collections: the classes marked <see cref="StartsFirstAttribute"/> first, then the rest, each
/// group in xunit's own (random) order so that hidden dependencies on order still surface.
/// </summary>
/// <remarks>
/// xunit names a class's own collection "Test collection for " followed by the class's full name; a collection named
/// otherwise (a shared <c>[Collection]</c>) is never marked, so it runs with the rest. Ordering is only about time:
/// a marked class that is not recognised costs seconds, never a test.
/// </remarks>
public sealed class StartsFirstCollectionOrderer : ITestCollectionOrderer
{
    private const string ClassCollectionPrefix = "Test collection for ";

    private static readonly HashSet<string> s_markedClasses =
    [
        .. typeof(StartsFirstCollectionOrderer).Assembly.GetTypes()
            .Where(type => type.GetCustomAttribute<StartsFirstAttribute>() is not null)
            .Select(type => type.FullName!),
    ];

    /// <inheritdoc/>
    public IReadOnlyCollection<TTestCollection> OrderTestCollections<TTestCollection>(IReadOnlyCollection<TTestCollection> testCollections)
        where TTestCollection : notnull, ITestCollection
    {
        IReadOnlyCollection<TTestCollection> shuffled = DefaultTestCollectionOrderer.Instance.OrderTestCollections(testCollections);
        return [.. shuffled.Where(collection => IsMarked(collection)), .. shuffled.Where(collection => !IsMarked(collection))];
    }

    private static bool IsMarked(ITestCollection collection) =>
        collection.TestCollectionDisplayName.StartsWith(ClassCollectionPrefix, StringComparison.Ordinal)
        && s_markedClasses.Contains(collection.TestCollectionDisplayName[ClassCollectionPrefix.Length..]);
}

using System.Runtime.CompilerServices;
using Encryption.Custom.Cosmos;
using Encryption.Custom.Cosmos.Compatibility;
using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Queries;
using Microsoft.Azure.Cosmos;
using Microsoft.Azure.Cosmos.Linq;

namespace Encryption.Custom;

/// <summary>Entry points: wrap a container with an encryptor, and run LINQ queries through it.</summary>
public static class EncryptionContainerExtensions
{
    /// <summary>
    /// Returns a <see cref="Container"/> that encrypts item bodies by the container's
    /// <see cref="EncryptionContainerOptions.Policy"/> and when a request's
    /// <see cref="EncryptionItemRequestOptions.EncryptionOptions"/> ask for it, and decrypts whatever is encrypted in
    /// every response, query and change feed page (refusing plaintext where the policy forbids it). Create it once
    /// per container and reuse it.
    /// </summary>
    /// <param name="container">The container to wrap.</param>
    /// <param name="encryptor">Supplies the data encryption keys (usually a <see cref="CosmosEncryptor"/>).</param>
    /// <param name="options">The container's settings; <see langword="null"/> for the defaults.</param>
    /// <returns>The encryption container.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="container"/> or <paramref name="encryptor"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="container"/> already is an encryption container.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The options name an unknown <see cref="JsonProcessor"/>.</exception>
    /// <exception cref="NotSupportedException">
    /// The Microsoft.Azure.Cosmos version loaded in the process is outside the range this build supports (the
    /// message names both); typically a newer SDK added an abstract member to <see cref="Container"/>.
    /// </exception>
    public static Container WithEncryptor(this Container container, Encryptor encryptor, EncryptionContainerOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(encryptor);

        // This method must not mention the SDK-derived types itself: one that cannot load would fail while this
        // method is compiled, before any handler runs.
        return CosmosSdkSupport.LoadEncryptionTypes(() => Wrap(container, encryptor, options));
    }

    // Returns Container, not EncryptionContainer: the lambda in WithEncryptor infers its type argument from this.
    [MethodImpl(MethodImplOptions.NoInlining)]
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1859", Justification = "WithEncryptor must not name the SDK-derived type (see above).")]
    private static Container Wrap(Container container, Encryptor encryptor, EncryptionContainerOptions? options)
    {
        // Two layers would both act on the same request options: the inner one would refuse the outer's ciphertext.
        if (container is EncryptionContainer)
        {
            throw new ArgumentException("The container already encrypts: call WithEncryptor on the plain container.", nameof(container));
        }

        return new EncryptionContainer(container, encryptor, options);
    }

    /// <summary>
    /// Runs a LINQ query built with <see cref="Container.GetItemLinqQueryable{T}"/> of an encryption container and
    /// returns a typed iterator whose pages are decrypted (use <see cref="DecryptableItem"/> as
    /// <typeparamref name="T"/> to decrypt document by document). Predicates and projections on encrypted
    /// properties run on the service, which only sees ciphertext: <c>==</c>, <c>!=</c> and <c>Contains</c> on a
    /// property the policy encrypts deterministically are rewritten to compare with its ciphertext (under every
    /// accepted key), other uses of encrypted properties are refused.
    /// </summary>
    /// <typeparam name="T">The item type.</typeparam>
    /// <param name="container">The encryption container the query was built from.</param>
    /// <param name="query">The query.</param>
    /// <returns>The iterator.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="container"/> is not an encryption container, or <paramref name="query"/> is not a Cosmos LINQ query.</exception>
    /// <exception cref="NotSupportedException">The query filters or orders on a property the container's policy encrypts in a way the service cannot evaluate: anything on a randomized path, anything but ==, != and Contains on a deterministic one (docs/queries.md).</exception>
    public static FeedIterator<T> ToEncryptionFeedIterator<T>(this Container container, IQueryable<T> query) =>
        new EncryptionFeedIterator<T>(ToEncryptionStreamIteratorCore(container, query));

    /// <summary>
    /// Runs a LINQ query built with <see cref="Container.GetItemLinqQueryable{T}"/> of an encryption container and
    /// returns a stream iterator whose pages are decrypted.
    /// </summary>
    /// <typeparam name="T">The item type of the query.</typeparam>
    /// <param name="container">The encryption container the query was built from.</param>
    /// <param name="query">The query.</param>
    /// <returns>The iterator.</returns>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="container"/> is not an encryption container, or <paramref name="query"/> is not a Cosmos LINQ query.</exception>
    /// <exception cref="NotSupportedException">The query filters or orders on a property the container's policy encrypts in a way the service cannot evaluate: anything on a randomized path, anything but ==, != and Contains on a deterministic one (docs/queries.md).</exception>
    public static FeedIterator ToEncryptionStreamIterator<T>(this Container container, IQueryable<T> query) =>
        ToEncryptionStreamIteratorCore(container, query);

    private static EncryptionFeedIterator ToEncryptionStreamIteratorCore<T>(Container container, IQueryable<T> query)
    {
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(query);
        if (container is not EncryptionContainer encryptionContainer)
        {
            throw new ArgumentException("The container was not created with WithEncryptor.", nameof(container));
        }

        // The SDK translates the expression (its naming policy and attributes stay honoured); the SQL then goes
        // through the same parser, guard and operand encryption as any query of the container.
        LinqQueryState state = LinqQueryMarker.Unmark(query, out IQueryable<T> unmarked) is { } found && ReferenceEquals(found.Container, encryptionContainer)
            ? found
            : throw new ArgumentException("The query was not built with GetItemLinqQueryable of this encryption container.", nameof(query));
        QueryDefinition definition;
        try
        {
            definition = unmarked.ToQueryDefinition();
        }
        catch (ArgumentOutOfRangeException exception)
        {
            throw new ArgumentException("The query was not built with GetItemLinqQueryable.", nameof(query), exception);
        }

        QueryDefinition checkedDefinition = encryptionContainer.QueryGuard.Check(definition, out Encryption.Custom.Cosmos.Queries.Tokens.TokenRecheck? recheck, fromLinq: true);
        return encryptionContainer.Query(checkedDefinition, recheck, d => encryptionContainer.Inner.GetItemQueryStreamIterator(d, state.ContinuationToken, encryptionContainer.Lookups.Encrypt(state.RequestOptions)));
    }
}

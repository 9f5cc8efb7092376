using Encryption.Custom.Keys;

namespace Encryption.Custom.Tests.TestSupport;

/// <summary>
/// An <see cref="Encryptor"/> over a fixed set of keys, for unit tests. Answers synchronously (a completed
/// <see cref="ValueTask{T}"/>, allocation-free) unless <see cref="Asynchronous"/> is set, in which case it yields first.
/// </summary>
public sealed class TestEncryptor : Encryptor
{
    private readonly Dictionary<(string Id, string Algorithm), DataEncryptionKey> _keys = [];
    private int _lookups;

    /// <summary>Yield before answering, to exercise truly asynchronous paths.</summary>
    public bool Asynchronous { get; set; }

    /// <summary>When set, every lookup waits for this task before answering (a key provider that has to go to the network).</summary>
    public Task? AnswerAfter { get; set; }

    /// <summary>How many keys were asked for.</summary>
    public int Lookups => Volatile.Read(ref _lookups);

    public TestEncryptor Add(string id, DataEncryptionKey key)
    {
        _keys[(id, key.EncryptionAlgorithm)] = key;
        return this;
    }

    public override ValueTask<DataEncryptionKey> GetEncryptionKeyAsync(string dataEncryptionKeyId, string encryptionAlgorithm, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        Interlocked.Increment(ref _lookups);
        if (!_keys.TryGetValue((dataEncryptionKeyId, encryptionAlgorithm), out DataEncryptionKey? key))
        {
            throw new EncryptionException(EncryptionErrorKind.KeyUnavailable, $"No key '{dataEncryptionKeyId}' for '{encryptionAlgorithm}'.", dataEncryptionKeyId);
        }

        return Asynchronous || AnswerAfter is not null ? AnswerLaterAsync(key, AnswerAfter, cancellationToken) : new ValueTask<DataEncryptionKey>(key);
    }

    private static async ValueTask<DataEncryptionKey> AnswerLaterAsync(DataEncryptionKey key, Task? after, CancellationToken cancellationToken)
    {
        await Task.Yield();
        if (after is not null)
        {
            await after.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        cancellationToken.ThrowIfCancellationRequested();
        return key;
    }
}

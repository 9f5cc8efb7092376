namespace Encryption.Custom.Native.Memory;

/// <summary>
/// Test seam: platform refusals to simulate, so that every fallback path of the key memory runs on any machine.
/// Each simulated refusal behaves as the real one would (same fallback, same error code reported).
/// </summary>
[Flags]
internal enum ProtectedMemoryFaults
{
    /// <summary>Nothing simulated: ask the platform.</summary>
    None = 0,

    /// <summary><c>memfd_secret</c> fails as on kernels without it (<c>ENOSYS</c>).</summary>
    SecretMemoryUnavailable = 1 << 0,

    /// <summary>Locking fails as when the memlock limit is exhausted; secret memory (always locked) fails too.</summary>
    LockRefused = 1 << 1,

    /// <summary><c>MADV_DONTDUMP</c> fails.</summary>
    DumpExclusionRefused = 1 << 2,

    /// <summary><c>MADV_WIPEONFORK</c> / <c>MADV_DONTFORK</c> fail as on old kernels.</summary>
    ForkProtectionRefused = 1 << 3,

    /// <summary>The guarded page mapping itself fails: the plain native heap is used.</summary>
    MappingUnavailable = 1 << 4,
}

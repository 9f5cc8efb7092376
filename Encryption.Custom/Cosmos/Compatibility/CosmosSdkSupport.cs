using System.Reflection;
using System.Runtime.CompilerServices;
using Encryption.Custom.Cosmos.Batch;
using Encryption.Custom.Cosmos.Feeds;
using Encryption.Custom.Cosmos.Responses;
using Encryption.Custom.Cosmos.Serialization;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Cosmos.Compatibility;

/// <summary>
/// The range of Microsoft.Azure.Cosmos versions this build supports, and the one place that turns "the SDK in the
/// process is outside it" into an error a user can act on.
/// </summary>
/// <remarks>
/// The encryption container and its helpers derive from the SDK's abstract types (<see cref="Container"/>,
/// <see cref="TransactionalBatch"/>, <see cref="FeedIterator"/>...). When a newer SDK adds an abstract member to one
/// of them, the runtime cannot load our derived type and throws a bare <see cref="TypeLoadException"/> from wherever
/// the type is first touched. <see cref="LoadEncryptionTypes{T}"/> touches them all at <c>WithEncryptor</c> and
/// maps that failure to a <see cref="NotSupportedException"/> naming the supported range. The range comes from
/// Directory.Packages.props (the floor the library is built against and the newest version eng/sdk-matrix.sh
/// tests) through assembly metadata, so there is one source for it.
/// </remarks>
internal static class CosmosSdkSupport
{
    /// <summary>The assembly metadata key of the oldest supported SDK version (the one the library is built against).</summary>
    internal const string FloorMetadataKey = "CosmosSdkFloor";

    /// <summary>The assembly metadata key of the newest SDK version the endpoint tests ran against.</summary>
    internal const string NewestTestedMetadataKey = "CosmosSdkNewestTested";

    /// <summary>The oldest supported Microsoft.Azure.Cosmos version.</summary>
    internal static string Floor { get; } = ReadMetadata(FloorMetadataKey);

    /// <summary>The newest Microsoft.Azure.Cosmos version this build was tested with.</summary>
    internal static string NewestTested { get; } = ReadMetadata(NewestTestedMetadataKey);

    /// <summary>The version of the Microsoft.Azure.Cosmos assembly loaded in this process.</summary>
    internal static string LoadedVersion
    {
        get
        {
            Assembly sdk = typeof(Container).Assembly;
            string? informational = sdk.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;

            // The informational version may carry a source revision after '+'; the package version is before it.
            string? version = informational?.Split('+')[0] ?? sdk.GetName().Version?.ToString();
            return string.IsNullOrEmpty(version) ? "(unknown version)" : version;
        }
    }

    /// <summary>
    /// Runs <paramref name="create"/> (which constructs SDK-derived types) after loading every type of ours that
    /// derives from an SDK abstract type, and reports a type that cannot load as unsupported SDK version.
    /// </summary>
    /// <exception cref="NotSupportedException">A type cannot load: the loaded SDK is outside the supported range.</exception>
    internal static T LoadEncryptionTypes<T>(Func<T> create) => Guard(() =>
    {
        LoadDerivedTypes();
        return create();
    });

    /// <summary>Maps a <see cref="TypeLoadException"/> thrown by <paramref name="create"/> (the seam the unit tests use).</summary>
    /// <exception cref="NotSupportedException">The type load failure, naming the supported range.</exception>
    internal static T Guard<T>(Func<T> create)
    {
        try
        {
            return create();
        }
        catch (TypeLoadException exception)
        {
            throw Unsupported(exception);
        }
    }

    /// <summary>The error for an SDK whose abstract types no longer match this build.</summary>
    internal static NotSupportedException Unsupported(TypeLoadException exception)
    {
        string type = string.IsNullOrEmpty(exception.TypeName) ? "an encryption type" : $"the type '{exception.TypeName}'";
        return new NotSupportedException(
            $"Encryption.Custom supports Microsoft.Azure.Cosmos {Floor} to {NewestTested}, but version {LoadedVersion} is loaded "
            + $"and {type} cannot load against it (a newer SDK usually added an abstract member to a type the "
            + "encryption container derives from). Reference a Microsoft.Azure.Cosmos version in the supported range, "
            + "or an Encryption.Custom release that supports this one.",
            exception);
    }

    // Separate and not inlined, so that a type that cannot load fails inside Guard's try block rather than when the
    // caller is compiled. Every non-abstract type of ours that derives from an SDK abstract type is listed here.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LoadDerivedTypes()
    {
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionContainer).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionTransactionalBatch).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionTransactionalBatchResponse).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionTransactionalBatchOperationResult).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionTransactionalBatchOperationResult<object>).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionFeedIterator).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionFeedIterator<object>).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionItemResponse<object>).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(EncryptionFeedResponse<object>).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(DecryptedResponseMessage).TypeHandle);
        RuntimeHelpers.RunClassConstructor(typeof(NewtonsoftItemSerializer).TypeHandle);
    }

    private static string ReadMetadata(string key)
    {
        foreach (AssemblyMetadataAttribute attribute in typeof(CosmosSdkSupport).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>())
        {
            if (string.Equals(attribute.Key, key, StringComparison.Ordinal) && !string.IsNullOrEmpty(attribute.Value))
            {
                return attribute.Value;
            }
        }

        return "(unknown)";
    }
}

using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Hosting;

/// <summary>
/// A short, secret-free name for what failed, for log arguments and health descriptions: the same vocabulary as the
/// library's <c>error.type</c> tag (docs/diagnostics.md).
/// </summary>
internal static class ErrorKinds
{
    public static string Classify(Exception exception) => exception switch
    {
        EncryptionException encryption => encryption.Kind.ToString(),
        CosmosException cosmos => "cosmos." + ((int)cosmos.StatusCode).ToString(System.Globalization.CultureInfo.InvariantCulture),
        OperationCanceledException => "canceled",
        _ => exception.GetType().FullName ?? "unknown",
    };
}

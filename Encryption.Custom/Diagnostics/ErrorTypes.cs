using System.Globalization;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Diagnostics;

/// <summary>
/// The one owner of the error vocabulary (<see cref="DiagnosticNames.ErrorTypeTag"/>, log arguments, health
/// descriptions, migration failures): short and secret-free, never an exception's message.
/// </summary>
/// <remarks>
/// It names the Cosmos SDK's exception type to tag the service's status code. It lives here, below the layers that
/// report errors (Keys, Cosmos, Migration), because every one of them classifies with it.
/// </remarks>
internal static class ErrorTypes
{
    /// <summary>An <see cref="EncryptionErrorKind"/> name, <c>cosmos.&lt;status&gt;</c>, <c>canceled</c>, or the exception's type name.</summary>
    public static string Classify(Exception exception) => exception switch
    {
        EncryptionException encryption => encryption.Kind.ToString(),
        CosmosException cosmos => ForStatus((int)cosmos.StatusCode),
        OperationCanceledException => "canceled",
        _ => exception.GetType().FullName ?? "unknown",
    };

    /// <summary>The error type of a service answer with <paramref name="statusCode"/> (an answer read as a response, not thrown).</summary>
    public static string ForStatus(int statusCode) => "cosmos." + statusCode.ToString(CultureInfo.InvariantCulture);
}

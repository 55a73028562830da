import type * as Types from './types.js';
import type { ServiceHealth, ServiceHealthIssue, ServiceUpdateMessage, Title } from './types.js';
import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { TitleRef, SeasonRef } from '../domains/titles/model.js';
import type { SearchPage } from '../domains/titles/loaders.js';
import type { SingletonModel, ServiceHealthModel, ServiceHealthPage, ServiceHealthIssuePage, ServiceUpdateMessagePage, AnyPage } from '../domains/enterprise/model.js';
import type { HealthEvent } from '../domains/enterprise/live/feed.js';
import type { StoredDocument } from '../state/documents.js';
import type { GatewayContext } from '../context/request.js';
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };


export type ResolverTypeWrapper<T> = Promise<T> | T;

export type ReferenceResolver<TResult, TReference, TContext> = (
      reference: TReference,
      context: TContext,
      info: GraphQLResolveInfo
    ) => Promise<TResult> | TResult;

      type ScalarCheck<T, S> = S extends true ? T : NullableCheck<T, S>;
      type NullableCheck<T, S> = Types.Maybe<T> extends T ? Types.Maybe<ListCheck<NonNullable<T>, S>> : ListCheck<T, S>;
      type ListCheck<T, S> = T extends (infer U)[] ? NullableCheck<U, S>[] : GraphQLRecursivePick<T, S>;
      export type GraphQLRecursivePick<T, S> = { [K in keyof T & keyof S]: ScalarCheck<T[K], S[K]> };
    

export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Types.Maybe<TTypes> | Promise<Types.Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

/** Mapping of federation types */
export type FederationTypes = {
  ServiceHealth: ServiceHealth;
  ServiceHealthIssue: ServiceHealthIssue;
  ServiceUpdateMessage: ServiceUpdateMessage;
  Title: Title;
};

/** Mapping of federation reference types */
export type FederationReferenceTypes = {
  ServiceHealth:
    ( { __typename: 'ServiceHealth' }
    & GraphQLRecursivePick<FederationTypes['ServiceHealth'], {"id":true}> );
  ServiceHealthIssue:
    ( { __typename: 'ServiceHealthIssue' }
    & GraphQLRecursivePick<FederationTypes['ServiceHealthIssue'], {"id":true}> );
  ServiceUpdateMessage:
    ( { __typename: 'ServiceUpdateMessage' }
    & GraphQLRecursivePick<FederationTypes['ServiceUpdateMessage'], {"id":true}> );
  Title:
    ( { __typename: 'Title' }
    & GraphQLRecursivePick<FederationTypes['Title'], {"imdbId":true}> );
};



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Admin: ResolverTypeWrapper<SingletonModel>;
  String: ResolverTypeWrapper<Types.Scalars['String']['output']>;
  AdminInput: Types.AdminInput;
  BodyType: Types.BodyType;
  CacheControlScope: Types.CacheControlScope;
  ChatAttempt: ResolverTypeWrapper<Types.ChatAttempt>;
  ID: ResolverTypeWrapper<Types.Scalars['ID']['output']>;
  ChatAttemptOutcome: Types.ChatAttemptOutcome;
  ChatCapabilities: ResolverTypeWrapper<Types.ChatCapabilities>;
  Float: ResolverTypeWrapper<Types.Scalars['Float']['output']>;
  ChatChoice: ResolverTypeWrapper<Types.ChatChoice>;
  ChatCompletion: ResolverTypeWrapper<Types.ChatCompletion>;
  ChatCompletionChunk: ResolverTypeWrapper<Types.ChatCompletionChunk>;
  ChatCompletionInput: Types.ChatCompletionInput;
  ChatContentPartInput: Types.ChatContentPartInput;
  ChatContentPartType: Types.ChatContentPartType;
  ChatDelta: ResolverTypeWrapper<Types.ChatDelta>;
  ChatDocument: ResolverTypeWrapper<StoredDocument>;
  ChatDocumentStatus: Types.ChatDocumentStatus;
  ChatFinishReason: Types.ChatFinishReason;
  ChatGraphStep: ResolverTypeWrapper<Types.ChatGraphStep>;
  ChatMessage: ResolverTypeWrapper<Types.ChatMessage>;
  ChatMessageInput: Types.ChatMessageInput;
  ChatModel: ResolverTypeWrapper<Types.ChatModel>;
  ChatModelFactSources: ResolverTypeWrapper<Types.ChatModelFactSources>;
  ChatModelSource: Types.ChatModelSource;
  ChatProvider: ResolverTypeWrapper<Types.ChatProvider>;
  ChatReasoningEffort: Types.ChatReasoningEffort;
  ChatReasoningInput: Types.ChatReasoningInput;
  ChatReasoningSupport: Types.ChatReasoningSupport;
  ChatResponseFormatInput: Types.ChatResponseFormatInput;
  ChatResponseFormatType: Types.ChatResponseFormatType;
  ChatRole: Types.ChatRole;
  ChatTarget: Types.ChatTarget;
  ChatTokenUsage: ResolverTypeWrapper<Types.ChatTokenUsage>;
  ChatToolCall: ResolverTypeWrapper<Types.ChatToolCall>;
  ChatToolCallDelta: ResolverTypeWrapper<Types.ChatToolCallDelta>;
  ChatToolCallInput: Types.ChatToolCallInput;
  ChatToolChoiceInput: Types.ChatToolChoiceInput;
  ChatToolChoiceMode: Types.ChatToolChoiceMode;
  ChatToolInput: Types.ChatToolInput;
  ChatUsage: ResolverTypeWrapper<Types.ChatUsage>;
  CreateEmbeddingsInput: Types.CreateEmbeddingsInput;
  Date: ResolverTypeWrapper<Types.Scalars['Date']['output']>;
  DateTime: ResolverTypeWrapper<Types.Scalars['DateTime']['output']>;
  Embedding: ResolverTypeWrapper<Types.Embedding>;
  EmbeddingResult: ResolverTypeWrapper<Types.EmbeddingResult>;
  EmbeddingUsage: ResolverTypeWrapper<Types.EmbeddingUsage>;
  GenerateImageInput: Types.GenerateImageInput;
  GeneratedImage: ResolverTypeWrapper<Types.GeneratedImage>;
  ImageContentFilter: ResolverTypeWrapper<Types.ImageContentFilter>;
  ImageGeneration: ResolverTypeWrapper<Types.ImageGeneration>;
  ImageResponseFormat: Types.ImageResponseFormat;
  ImageUsage: ResolverTypeWrapper<Types.ImageUsage>;
  ItemBody: ResolverTypeWrapper<Types.ItemBody>;
  ItemBodyInput: Types.ItemBodyInput;
  JSON: ResolverTypeWrapper<Types.Scalars['JSON']['output']>;
  JSONObject: ResolverTypeWrapper<Types.Scalars['JSONObject']['output']>;
  KeyValuePair: ResolverTypeWrapper<Types.KeyValuePair>;
  KeyValuePairInput: Types.KeyValuePairInput;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  OpenProperty: ResolverTypeWrapper<Types.OpenProperty>;
  OpenPropertyInput: Types.OpenPropertyInput;
  OrderDirection: Types.OrderDirection;
  PageInfo: ResolverTypeWrapper<AnyPage>;
  PlotLength: Types.PlotLength;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  ServiceAnnouncement: ResolverTypeWrapper<SingletonModel>;
  ServiceAnnouncementInput: Types.ServiceAnnouncementInput;
  ServiceHealth: ResolverTypeWrapper<ServiceHealthModel>;
  ServiceHealthChange: ResolverTypeWrapper<HealthEvent>;
  ServiceHealthChangeKind: Types.ServiceHealthChangeKind;
  ServiceHealthClassification: Types.ServiceHealthClassification;
  ServiceHealthConnection: ResolverTypeWrapper<ServiceHealthPage>;
  ServiceHealthEdge: ResolverTypeWrapper<Omit<Types.ServiceHealthEdge, 'node'> & { node: ResolversTypes['ServiceHealth'] }>;
  ServiceHealthInput: Types.ServiceHealthInput;
  ServiceHealthIssue: ResolverTypeWrapper<Types.ServiceHealthIssue>;
  ServiceHealthIssueConnection: ResolverTypeWrapper<ServiceHealthIssuePage>;
  ServiceHealthIssueEdge: ResolverTypeWrapper<Types.ServiceHealthIssueEdge>;
  ServiceHealthIssueInput: Types.ServiceHealthIssueInput;
  ServiceHealthIssueOrder: Types.ServiceHealthIssueOrder;
  ServiceHealthIssueOrderField: Types.ServiceHealthIssueOrderField;
  ServiceHealthIssuePost: ResolverTypeWrapper<Types.ServiceHealthIssuePost>;
  ServiceHealthIssuePostInput: Types.ServiceHealthIssuePostInput;
  ServiceHealthIssuePostType: Types.ServiceHealthIssuePostType;
  ServiceHealthOrder: Types.ServiceHealthOrder;
  ServiceHealthOrderField: Types.ServiceHealthOrderField;
  ServiceHealthOrigin: Types.ServiceHealthOrigin;
  ServiceHealthPatch: Types.ServiceHealthPatch;
  ServiceHealthStatus: Types.ServiceHealthStatus;
  ServiceUpdateCategory: Types.ServiceUpdateCategory;
  ServiceUpdateMessage: ResolverTypeWrapper<Types.ServiceUpdateMessage>;
  ServiceUpdateMessageConnection: ResolverTypeWrapper<ServiceUpdateMessagePage>;
  ServiceUpdateMessageEdge: ResolverTypeWrapper<Types.ServiceUpdateMessageEdge>;
  ServiceUpdateMessageFilter: Types.ServiceUpdateMessageFilter;
  ServiceUpdateMessageOrder: Types.ServiceUpdateMessageOrder;
  ServiceUpdateMessageOrderField: Types.ServiceUpdateMessageOrderField;
  ServiceUpdateMessageViewpoint: ResolverTypeWrapper<Types.ServiceUpdateMessageViewpoint>;
  ServiceUpdateSeverity: Types.ServiceUpdateSeverity;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Title: ResolverTypeWrapper<TitleRef>;
  TitleRating: ResolverTypeWrapper<Types.TitleRating>;
  TitleSearchPage: ResolverTypeWrapper<SearchPage>;
  TitleSeason: ResolverTypeWrapper<SeasonRef>;
  TitleType: Types.TitleType;
  Upload: ResolverTypeWrapper<Types.Scalars['Upload']['output']>;
  Upstream: ResolverTypeWrapper<Types.Upstream>;
  UpstreamMode: Types.UpstreamMode;
  Boolean: ResolverTypeWrapper<Types.Scalars['Boolean']['output']>;
  Int: ResolverTypeWrapper<Types.Scalars['Int']['output']>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Admin: SingletonModel;
  String: Types.Scalars['String']['output'];
  AdminInput: Types.AdminInput;
  ChatAttempt: Types.ChatAttempt;
  ID: Types.Scalars['ID']['output'];
  ChatCapabilities: Types.ChatCapabilities;
  Float: Types.Scalars['Float']['output'];
  ChatChoice: Types.ChatChoice;
  ChatCompletion: Types.ChatCompletion;
  ChatCompletionChunk: Types.ChatCompletionChunk;
  ChatCompletionInput: Types.ChatCompletionInput;
  ChatContentPartInput: Types.ChatContentPartInput;
  ChatDelta: Types.ChatDelta;
  ChatDocument: StoredDocument;
  ChatGraphStep: Types.ChatGraphStep;
  ChatMessage: Types.ChatMessage;
  ChatMessageInput: Types.ChatMessageInput;
  ChatModel: Types.ChatModel;
  ChatModelFactSources: Types.ChatModelFactSources;
  ChatProvider: Types.ChatProvider;
  ChatReasoningInput: Types.ChatReasoningInput;
  ChatResponseFormatInput: Types.ChatResponseFormatInput;
  ChatTarget: Types.ChatTarget;
  ChatTokenUsage: Types.ChatTokenUsage;
  ChatToolCall: Types.ChatToolCall;
  ChatToolCallDelta: Types.ChatToolCallDelta;
  ChatToolCallInput: Types.ChatToolCallInput;
  ChatToolChoiceInput: Types.ChatToolChoiceInput;
  ChatToolInput: Types.ChatToolInput;
  ChatUsage: Types.ChatUsage;
  CreateEmbeddingsInput: Types.CreateEmbeddingsInput;
  Date: Types.Scalars['Date']['output'];
  DateTime: Types.Scalars['DateTime']['output'];
  Embedding: Types.Embedding;
  EmbeddingResult: Types.EmbeddingResult;
  EmbeddingUsage: Types.EmbeddingUsage;
  GenerateImageInput: Types.GenerateImageInput;
  GeneratedImage: Types.GeneratedImage;
  ImageContentFilter: Types.ImageContentFilter;
  ImageGeneration: Types.ImageGeneration;
  ImageUsage: Types.ImageUsage;
  ItemBody: Types.ItemBody;
  ItemBodyInput: Types.ItemBodyInput;
  JSON: Types.Scalars['JSON']['output'];
  JSONObject: Types.Scalars['JSONObject']['output'];
  KeyValuePair: Types.KeyValuePair;
  KeyValuePairInput: Types.KeyValuePairInput;
  Mutation: Record<PropertyKey, never>;
  OpenProperty: Types.OpenProperty;
  OpenPropertyInput: Types.OpenPropertyInput;
  PageInfo: AnyPage;
  Query: Record<PropertyKey, never>;
  ServiceAnnouncement: SingletonModel;
  ServiceAnnouncementInput: Types.ServiceAnnouncementInput;
  ServiceHealth: ServiceHealthModel;
  ServiceHealthChange: HealthEvent;
  ServiceHealthConnection: ServiceHealthPage;
  ServiceHealthEdge: Omit<Types.ServiceHealthEdge, 'node'> & { node: ResolversParentTypes['ServiceHealth'] };
  ServiceHealthInput: Types.ServiceHealthInput;
  ServiceHealthIssue: Types.ServiceHealthIssue | FederationReferenceTypes['ServiceHealthIssue'];
  ServiceHealthIssueConnection: ServiceHealthIssuePage;
  ServiceHealthIssueEdge: Types.ServiceHealthIssueEdge;
  ServiceHealthIssueInput: Types.ServiceHealthIssueInput;
  ServiceHealthIssueOrder: Types.ServiceHealthIssueOrder;
  ServiceHealthIssuePost: Types.ServiceHealthIssuePost;
  ServiceHealthIssuePostInput: Types.ServiceHealthIssuePostInput;
  ServiceHealthOrder: Types.ServiceHealthOrder;
  ServiceHealthPatch: Types.ServiceHealthPatch;
  ServiceUpdateMessage: Types.ServiceUpdateMessage | FederationReferenceTypes['ServiceUpdateMessage'];
  ServiceUpdateMessageConnection: ServiceUpdateMessagePage;
  ServiceUpdateMessageEdge: Types.ServiceUpdateMessageEdge;
  ServiceUpdateMessageFilter: Types.ServiceUpdateMessageFilter;
  ServiceUpdateMessageOrder: Types.ServiceUpdateMessageOrder;
  ServiceUpdateMessageViewpoint: Types.ServiceUpdateMessageViewpoint;
  Subscription: Record<PropertyKey, never>;
  Title: TitleRef;
  TitleRating: Types.TitleRating;
  TitleSearchPage: SearchPage;
  TitleSeason: SeasonRef;
  Upload: Types.Scalars['Upload']['output'];
  Upstream: Types.Upstream;
  Boolean: Types.Scalars['Boolean']['output'];
  Int: Types.Scalars['Int']['output'];
};

export type CacheControlDirectiveArgs = {
  inheritMaxAge?: Types.Maybe<Types.Scalars['Boolean']['input']>;
  maxAge?: Types.Maybe<Types.Scalars['Int']['input']>;
  scope?: Types.Maybe<Types.CacheControlScope>;
};

export type CacheControlDirectiveResolver<Result, Parent, ContextType = GatewayContext, Args = CacheControlDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type AdminResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Admin'] = ResolversParentTypes['Admin']> = {
  etag?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  properties?: Resolver<Types.Maybe<Array<ResolversTypes['OpenProperty']>>, ParentType, ContextType>;
  serviceAnnouncement?: Resolver<ResolversTypes['ServiceAnnouncement'], ParentType, ContextType>;
};

export type ChatAttemptResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatAttempt'] = ResolversParentTypes['ChatAttempt']> = {
  code?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['ChatAttemptOutcome'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type ChatCapabilitiesResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatCapabilities'] = ResolversParentTypes['ChatCapabilities']> = {
  contextWindow?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  streaming?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  temperatureMax?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  temperatureMin?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  tools?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  vision?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type ChatChoiceResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatChoice'] = ResolversParentTypes['ChatChoice']> = {
  finishReason?: Resolver<Types.Maybe<ResolversTypes['ChatFinishReason']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['ChatMessage'], ParentType, ContextType>;
};

export type ChatCompletionResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatCompletion'] = ResolversParentTypes['ChatCompletion']> = {
  attempts?: Resolver<Array<ResolversTypes['ChatAttempt']>, ParentType, ContextType>;
  choices?: Resolver<Array<ResolversTypes['ChatChoice']>, ParentType, ContextType>;
  content?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  graphSteps?: Resolver<Array<ResolversTypes['ChatGraphStep']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  json?: Resolver<Types.Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  jsonError?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  reasoningUsed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  usage?: Resolver<ResolversTypes['ChatTokenUsage'], ParentType, ContextType>;
};

export type ChatCompletionChunkResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatCompletionChunk'] = ResolversParentTypes['ChatCompletionChunk']> = {
  delta?: Resolver<ResolversTypes['ChatDelta'], ParentType, ContextType>;
  finishReason?: Resolver<Types.Maybe<ResolversTypes['ChatFinishReason']>, ParentType, ContextType>;
  graphStep?: Resolver<Types.Maybe<ResolversTypes['ChatGraphStep']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  json?: Resolver<Types.Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  jsonError?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  reasoningUsed?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  usage?: Resolver<Types.Maybe<ResolversTypes['ChatTokenUsage']>, ParentType, ContextType>;
};

export type ChatDeltaResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatDelta'] = ResolversParentTypes['ChatDelta']> = {
  content?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  reasoningContent?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  role?: Resolver<Types.Maybe<ResolversTypes['ChatRole']>, ParentType, ContextType>;
  toolCalls?: Resolver<Types.Maybe<Array<ResolversTypes['ChatToolCallDelta']>>, ParentType, ContextType>;
};

export type ChatDocumentResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatDocument'] = ResolversParentTypes['ChatDocument']> = {
  bytes?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  fileName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  provider?: Resolver<Types.Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['ChatDocumentStatus'], ParentType, ContextType>;
  tokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ChatGraphStepResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatGraphStep'] = ResolversParentTypes['ChatGraphStep']> = {
  arguments?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errorCode?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  result?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  toolCallId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  turn?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ChatMessageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatMessage'] = ResolversParentTypes['ChatMessage']> = {
  content?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  reasoningContent?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  role?: Resolver<ResolversTypes['ChatRole'], ParentType, ContextType>;
  toolCalls?: Resolver<Types.Maybe<Array<ResolversTypes['ChatToolCall']>>, ParentType, ContextType>;
};

export type ChatModelResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatModel'] = ResolversParentTypes['ChatModel']> = {
  contextWindow?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  deprecatedOn?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  factSources?: Resolver<ResolversTypes['ChatModelFactSources'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  json?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  maxOutputTokens?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  reasoning?: Resolver<Types.Maybe<ResolversTypes['ChatReasoningSupport']>, ParentType, ContextType>;
  reasoningEffort?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  reference?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  retiresOn?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['ChatModelSource'], ParentType, ContextType>;
  successor?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  toolStream?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  tools?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  upstreamModel?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  vision?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
};

export type ChatModelFactSourcesResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatModelFactSources'] = ResolversParentTypes['ChatModelFactSources']> = {
  contextWindow?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  json?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  maxOutputTokens?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  reasoning?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  toolStream?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  tools?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
  vision?: Resolver<Types.Maybe<ResolversTypes['ChatModelSource']>, ParentType, ContextType>;
};

export type ChatProviderResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatProvider'] = ResolversParentTypes['ChatProvider']> = {
  capabilities?: Resolver<ResolversTypes['ChatCapabilities'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  live?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  maxConcurrentRequests?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  modelDetails?: Resolver<Array<ResolversTypes['ChatModel']>, ParentType, ContextType>;
  models?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  modelsListedAt?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  requestsPerMinute?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  variant?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ChatTokenUsageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatTokenUsage'] = ResolversParentTypes['ChatTokenUsage']> = {
  cachedPromptTokens?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  completionTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  promptTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  reasoningTokens?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  totalTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ChatToolCallResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatToolCall'] = ResolversParentTypes['ChatToolCall']> = {
  arguments?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ChatToolCallDeltaResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatToolCallDelta'] = ResolversParentTypes['ChatToolCallDelta']> = {
  arguments?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  name?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ChatUsageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ChatUsage'] = ResolversParentTypes['ChatUsage']> = {
  cachedPromptTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  completionTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  day?: Resolver<ResolversTypes['Date'], ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  promptTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  reasoningTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  requests?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export interface DateScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Date'], any> {
  name: 'Date';
}

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type EmbeddingResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Embedding'] = ResolversParentTypes['Embedding']> = {
  embedding?: Resolver<Array<ResolversTypes['Float']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type EmbeddingResultResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['EmbeddingResult'] = ResolversParentTypes['EmbeddingResult']> = {
  data?: Resolver<Array<ResolversTypes['Embedding']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  requests?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  usage?: Resolver<ResolversTypes['EmbeddingUsage'], ParentType, ContextType>;
};

export type EmbeddingUsageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['EmbeddingUsage'] = ResolversParentTypes['EmbeddingUsage']> = {
  promptTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type GeneratedImageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['GeneratedImage'] = ResolversParentTypes['GeneratedImage']> = {
  b64Json?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  size?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  url?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ImageContentFilterResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ImageContentFilter'] = ResolversParentTypes['ImageContentFilter']> = {
  level?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  role?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ImageGenerationResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ImageGeneration'] = ResolversParentTypes['ImageGeneration']> = {
  contentFilter?: Resolver<Array<ResolversTypes['ImageContentFilter']>, ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  images?: Resolver<Array<ResolversTypes['GeneratedImage']>, ParentType, ContextType>;
  model?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  provider?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  usage?: Resolver<Types.Maybe<ResolversTypes['ImageUsage']>, ParentType, ContextType>;
};

export type ImageUsageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ImageUsage'] = ResolversParentTypes['ImageUsage']> = {
  generatedImages?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  outputTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalTokens?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type ItemBodyResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ItemBody'] = ResolversParentTypes['ItemBody']> = {
  content?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  contentType?: Resolver<Types.Maybe<ResolversTypes['BodyType']>, ParentType, ContextType>;
};

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export interface JsonObjectScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSONObject'], any> {
  name: 'JSONObject';
}

export type KeyValuePairResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['KeyValuePair'] = ResolversParentTypes['KeyValuePair']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  createChatCompletion?: Resolver<Types.Maybe<ResolversTypes['ChatCompletion']>, ParentType, ContextType, RequireFields<Types.MutationCreateChatCompletionArgs, 'input'>>;
  createEmbeddings?: Resolver<Types.Maybe<ResolversTypes['EmbeddingResult']>, ParentType, ContextType, RequireFields<Types.MutationCreateEmbeddingsArgs, 'input'>>;
  createServiceHealth?: Resolver<Types.Maybe<ResolversTypes['ServiceHealth']>, ParentType, ContextType, RequireFields<Types.MutationCreateServiceHealthArgs, 'input'>>;
  createServiceHealthIssue?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthIssue']>, ParentType, ContextType, RequireFields<Types.MutationCreateServiceHealthIssueArgs, 'input' | 'serviceHealthId'>>;
  deleteChatDocument?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType, RequireFields<Types.MutationDeleteChatDocumentArgs, 'id'>>;
  deleteServiceAnnouncement?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType, Partial<Types.MutationDeleteServiceAnnouncementArgs>>;
  deleteServiceHealth?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType, RequireFields<Types.MutationDeleteServiceHealthArgs, 'id'>>;
  generateImage?: Resolver<Types.Maybe<ResolversTypes['ImageGeneration']>, ParentType, ContextType, RequireFields<Types.MutationGenerateImageArgs, 'input'>>;
  updateAdmin?: Resolver<Types.Maybe<ResolversTypes['Admin']>, ParentType, ContextType, RequireFields<Types.MutationUpdateAdminArgs, 'input'>>;
  updateServiceAnnouncement?: Resolver<Types.Maybe<ResolversTypes['ServiceAnnouncement']>, ParentType, ContextType, RequireFields<Types.MutationUpdateServiceAnnouncementArgs, 'input'>>;
  updateServiceHealth?: Resolver<Types.Maybe<ResolversTypes['ServiceHealth']>, ParentType, ContextType, RequireFields<Types.MutationUpdateServiceHealthArgs, 'id' | 'input'>>;
  uploadChatDocument?: Resolver<Types.Maybe<ResolversTypes['ChatDocument']>, ParentType, ContextType, RequireFields<Types.MutationUploadChatDocumentArgs, 'file'>>;
};

export type OpenPropertyResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['OpenProperty'] = ResolversParentTypes['OpenProperty']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type PageInfoResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  admin?: Resolver<ResolversTypes['Admin'], ParentType, ContextType>;
  chatDocuments?: Resolver<Types.Maybe<Array<ResolversTypes['ChatDocument']>>, ParentType, ContextType>;
  chatProviders?: Resolver<Array<ResolversTypes['ChatProvider']>, ParentType, ContextType>;
  chatUsage?: Resolver<Array<ResolversTypes['ChatUsage']>, ParentType, ContextType, Partial<Types.QueryChatUsageArgs>>;
  searchTitles?: Resolver<Types.Maybe<ResolversTypes['TitleSearchPage']>, ParentType, ContextType, RequireFields<Types.QuerySearchTitlesArgs, 'page' | 'query'>>;
  title?: Resolver<Types.Maybe<ResolversTypes['Title']>, ParentType, ContextType, RequireFields<Types.QueryTitleArgs, 'plot'>>;
  upstreams?: Resolver<Array<ResolversTypes['Upstream']>, ParentType, ContextType>;
};

export type ServiceAnnouncementResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceAnnouncement'] = ResolversParentTypes['ServiceAnnouncement']> = {
  etag?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  healthOverview?: Resolver<Types.Maybe<ResolversTypes['ServiceHealth']>, ParentType, ContextType, RequireFields<Types.ServiceAnnouncementHealthOverviewArgs, 'id'>>;
  healthOverviews?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthConnection']>, ParentType, ContextType, Partial<Types.ServiceAnnouncementHealthOverviewsArgs>>;
  issues?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthIssueConnection']>, ParentType, ContextType, Partial<Types.ServiceAnnouncementIssuesArgs>>;
  message?: Resolver<Types.Maybe<ResolversTypes['ServiceUpdateMessage']>, ParentType, ContextType, RequireFields<Types.ServiceAnnouncementMessageArgs, 'id'>>;
  messages?: Resolver<Types.Maybe<ResolversTypes['ServiceUpdateMessageConnection']>, ParentType, ContextType, Partial<Types.ServiceAnnouncementMessagesArgs>>;
  properties?: Resolver<Types.Maybe<Array<ResolversTypes['OpenProperty']>>, ParentType, ContextType>;
};

export type ServiceHealthResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealth'] = ResolversParentTypes['ServiceHealth'], FederationReferenceType extends FederationReferenceTypes['ServiceHealth'] = FederationReferenceTypes['ServiceHealth']> = {
  __resolveReference?: ReferenceResolver<Types.Maybe<ResolversTypes['ServiceHealth']> | FederationReferenceType, FederationReferenceType, ContextType>;
  etag?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  issues?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthIssueConnection']>, ParentType, ContextType, Partial<Types.ServiceHealthIssuesArgs>>;
  service?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['ServiceHealthStatus'], ParentType, ContextType>;
};

export type ServiceHealthChangeResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthChange'] = ResolversParentTypes['ServiceHealthChange']> = {
  detectedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  issue?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthIssue']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['ServiceHealthChangeKind'], ParentType, ContextType>;
  previousStatus?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthStatus']>, ParentType, ContextType>;
  serviceHealth?: Resolver<ResolversTypes['ServiceHealth'], ParentType, ContextType>;
};

export type ServiceHealthConnectionResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthConnection'] = ResolversParentTypes['ServiceHealthConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ServiceHealthEdge']>, ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['ServiceHealth']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ServiceHealthEdgeResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthEdge'] = ResolversParentTypes['ServiceHealthEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['ServiceHealth'], ParentType, ContextType>;
};

export type ServiceHealthIssueResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthIssue'] = ResolversParentTypes['ServiceHealthIssue'], FederationReferenceType extends FederationReferenceTypes['ServiceHealthIssue'] = FederationReferenceTypes['ServiceHealthIssue']> = {
  __resolveReference?: ReferenceResolver<Types.Maybe<ResolversTypes['ServiceHealthIssue']> | FederationReferenceType, FederationReferenceType, ContextType>;
  classification?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthClassification']>, ParentType, ContextType>;
  details?: Resolver<Array<ResolversTypes['KeyValuePair']>, ParentType, ContextType>;
  endDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  etag?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  feature?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  featureGroup?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  impactDescription?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  isResolved?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  lastModifiedDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  origin?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthOrigin']>, ParentType, ContextType>;
  posts?: Resolver<Array<ResolversTypes['ServiceHealthIssuePost']>, ParentType, ContextType>;
  service?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  startDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  status?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthStatus']>, ParentType, ContextType>;
  title?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ServiceHealthIssueConnectionResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthIssueConnection'] = ResolversParentTypes['ServiceHealthIssueConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ServiceHealthIssueEdge']>, ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['ServiceHealthIssue']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ServiceHealthIssueEdgeResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthIssueEdge'] = ResolversParentTypes['ServiceHealthIssueEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['ServiceHealthIssue'], ParentType, ContextType>;
};

export type ServiceHealthIssuePostResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceHealthIssuePost'] = ResolversParentTypes['ServiceHealthIssuePost']> = {
  createdDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  description?: Resolver<Types.Maybe<ResolversTypes['ItemBody']>, ParentType, ContextType>;
  postType?: Resolver<Types.Maybe<ResolversTypes['ServiceHealthIssuePostType']>, ParentType, ContextType>;
};

export type ServiceUpdateMessageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceUpdateMessage'] = ResolversParentTypes['ServiceUpdateMessage'], FederationReferenceType extends FederationReferenceTypes['ServiceUpdateMessage'] = FederationReferenceTypes['ServiceUpdateMessage']> = {
  __resolveReference?: ReferenceResolver<Types.Maybe<ResolversTypes['ServiceUpdateMessage']> | FederationReferenceType, FederationReferenceType, ContextType>;
  actionRequiredByDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  body?: Resolver<Types.Maybe<ResolversTypes['ItemBody']>, ParentType, ContextType>;
  category?: Resolver<Types.Maybe<ResolversTypes['ServiceUpdateCategory']>, ParentType, ContextType>;
  details?: Resolver<Array<ResolversTypes['KeyValuePair']>, ParentType, ContextType>;
  endDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  expiryDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  hasAttachments?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  isMajorChange?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  lastModifiedDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  services?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  severity?: Resolver<Types.Maybe<ResolversTypes['ServiceUpdateSeverity']>, ParentType, ContextType>;
  startDateTime?: Resolver<Types.Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  tags?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  title?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  viewPoint?: Resolver<Types.Maybe<ResolversTypes['ServiceUpdateMessageViewpoint']>, ParentType, ContextType>;
};

export type ServiceUpdateMessageConnectionResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceUpdateMessageConnection'] = ResolversParentTypes['ServiceUpdateMessageConnection']> = {
  edges?: Resolver<Array<ResolversTypes['ServiceUpdateMessageEdge']>, ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['ServiceUpdateMessage']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ServiceUpdateMessageEdgeResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceUpdateMessageEdge'] = ResolversParentTypes['ServiceUpdateMessageEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['ServiceUpdateMessage'], ParentType, ContextType>;
};

export type ServiceUpdateMessageViewpointResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['ServiceUpdateMessageViewpoint'] = ResolversParentTypes['ServiceUpdateMessageViewpoint']> = {
  isArchived?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  isFavorited?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  isRead?: Resolver<Types.Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  chatCompletionStream?: SubscriptionResolver<ResolversTypes['ChatCompletionChunk'], "chatCompletionStream", ParentType, ContextType, RequireFields<Types.SubscriptionChatCompletionStreamArgs, 'input'>>;
  serverTime?: SubscriptionResolver<ResolversTypes['DateTime'], "serverTime", ParentType, ContextType, RequireFields<Types.SubscriptionServerTimeArgs, 'count' | 'intervalMs'>>;
  serviceHealthChanged?: SubscriptionResolver<ResolversTypes['ServiceHealthChange'], "serviceHealthChanged", ParentType, ContextType, Partial<Types.SubscriptionServiceHealthChangedArgs>>;
  serviceMessagePosted?: SubscriptionResolver<ResolversTypes['ServiceUpdateMessage'], "serviceMessagePosted", ParentType, ContextType, Partial<Types.SubscriptionServiceMessagePostedArgs>>;
};

export type TitleResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Title'] = ResolversParentTypes['Title'], FederationReferenceType extends FederationReferenceTypes['Title'] = FederationReferenceTypes['Title']> = {
  __resolveReference?: ReferenceResolver<Types.Maybe<ResolversTypes['Title']> | FederationReferenceType, FederationReferenceType, ContextType>;
  awards?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  boxOffice?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  cast?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  countries?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  directors?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  dvd?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  episode?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  episodes?: Resolver<Types.Maybe<Array<Types.Maybe<ResolversTypes['Title']>>>, ParentType, ContextType, RequireFields<Types.TitleEpisodesArgs, 'season'>>;
  genres?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  imdbId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  imdbRating?: Resolver<Types.Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  imdbVotes?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  languages?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  metascore?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  plot?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  posterUrl?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  production?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  rated?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  ratings?: Resolver<Array<ResolversTypes['TitleRating']>, ParentType, ContextType>;
  released?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  runtimeMinutes?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  season?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  seasons?: Resolver<Array<ResolversTypes['TitleSeason']>, ParentType, ContextType>;
  series?: Resolver<Types.Maybe<ResolversTypes['Title']>, ParentType, ContextType>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  totalSeasons?: Resolver<Types.Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['TitleType'], ParentType, ContextType>;
  website?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  writers?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  year?: Resolver<Types.Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TitleRatingResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['TitleRating'] = ResolversParentTypes['TitleRating']> = {
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type TitleSearchPageResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['TitleSearchPage'] = ResolversParentTypes['TitleSearchPage']> = {
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  items?: Resolver<Array<Types.Maybe<ResolversTypes['Title']>>, ParentType, ContextType>;
  page?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalPages?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalResults?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type TitleSeasonResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['TitleSeason'] = ResolversParentTypes['TitleSeason']> = {
  episodes?: Resolver<Types.Maybe<Array<Types.Maybe<ResolversTypes['Title']>>>, ParentType, ContextType>;
  number?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export interface UploadScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Upload'], any> {
  name: 'Upload';
}

export type UpstreamResolvers<ContextType = GatewayContext, ParentType extends ResolversParentTypes['Upstream'] = ResolversParentTypes['Upstream']> = {
  baseUrl?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['UpstreamMode'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GatewayContext> = {
  Admin?: AdminResolvers<ContextType>;
  ChatAttempt?: ChatAttemptResolvers<ContextType>;
  ChatCapabilities?: ChatCapabilitiesResolvers<ContextType>;
  ChatChoice?: ChatChoiceResolvers<ContextType>;
  ChatCompletion?: ChatCompletionResolvers<ContextType>;
  ChatCompletionChunk?: ChatCompletionChunkResolvers<ContextType>;
  ChatDelta?: ChatDeltaResolvers<ContextType>;
  ChatDocument?: ChatDocumentResolvers<ContextType>;
  ChatGraphStep?: ChatGraphStepResolvers<ContextType>;
  ChatMessage?: ChatMessageResolvers<ContextType>;
  ChatModel?: ChatModelResolvers<ContextType>;
  ChatModelFactSources?: ChatModelFactSourcesResolvers<ContextType>;
  ChatProvider?: ChatProviderResolvers<ContextType>;
  ChatTokenUsage?: ChatTokenUsageResolvers<ContextType>;
  ChatToolCall?: ChatToolCallResolvers<ContextType>;
  ChatToolCallDelta?: ChatToolCallDeltaResolvers<ContextType>;
  ChatUsage?: ChatUsageResolvers<ContextType>;
  Date?: GraphQLScalarType;
  DateTime?: GraphQLScalarType;
  Embedding?: EmbeddingResolvers<ContextType>;
  EmbeddingResult?: EmbeddingResultResolvers<ContextType>;
  EmbeddingUsage?: EmbeddingUsageResolvers<ContextType>;
  GeneratedImage?: GeneratedImageResolvers<ContextType>;
  ImageContentFilter?: ImageContentFilterResolvers<ContextType>;
  ImageGeneration?: ImageGenerationResolvers<ContextType>;
  ImageUsage?: ImageUsageResolvers<ContextType>;
  ItemBody?: ItemBodyResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  JSONObject?: GraphQLScalarType;
  KeyValuePair?: KeyValuePairResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  OpenProperty?: OpenPropertyResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  ServiceAnnouncement?: ServiceAnnouncementResolvers<ContextType>;
  ServiceHealth?: ServiceHealthResolvers<ContextType>;
  ServiceHealthChange?: ServiceHealthChangeResolvers<ContextType>;
  ServiceHealthConnection?: ServiceHealthConnectionResolvers<ContextType>;
  ServiceHealthEdge?: ServiceHealthEdgeResolvers<ContextType>;
  ServiceHealthIssue?: ServiceHealthIssueResolvers<ContextType>;
  ServiceHealthIssueConnection?: ServiceHealthIssueConnectionResolvers<ContextType>;
  ServiceHealthIssueEdge?: ServiceHealthIssueEdgeResolvers<ContextType>;
  ServiceHealthIssuePost?: ServiceHealthIssuePostResolvers<ContextType>;
  ServiceUpdateMessage?: ServiceUpdateMessageResolvers<ContextType>;
  ServiceUpdateMessageConnection?: ServiceUpdateMessageConnectionResolvers<ContextType>;
  ServiceUpdateMessageEdge?: ServiceUpdateMessageEdgeResolvers<ContextType>;
  ServiceUpdateMessageViewpoint?: ServiceUpdateMessageViewpointResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  Title?: TitleResolvers<ContextType>;
  TitleRating?: TitleRatingResolvers<ContextType>;
  TitleSearchPage?: TitleSearchPageResolvers<ContextType>;
  TitleSeason?: TitleSeasonResolvers<ContextType>;
  Upload?: GraphQLScalarType;
  Upstream?: UpstreamResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = GatewayContext> = {
  cacheControl?: CacheControlDirectiveResolver<any, any, ContextType>;
};
